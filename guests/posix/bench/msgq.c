/* msgq.c - message queue put/get with and without a context switch (thesis Figure 3.3:
 * "add data to a fifo", "retrieve data from a fifo", "wait on a fifo (and context
 * switch)", "wake and switch to a thread waiting on a fifo").
 *
 * POSIX message queues (mq_send / mq_receive, 16-byte messages, 8 slots; unlinked
 * right after mq_open). mq_put / mq_get: send then receive on the main thread's own
 * queue (no waiter, no switch). mq_put_wake: main sends to a queue a priority+1
 * helper is blocked on; value = helper's stamp after mq_receive - main's stamp before
 * mq_send. mq_get_wait: the helper receives from the empty queue again (blocks);
 * value = main's stamp when it runs - helper's stamp before mq_receive.
 */
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <stdio.h>
#include <unistd.h>
#include "rt.h"

#define MSG 16
static mqd_t own, hq;
static volatile uint64_t t_wait, t_got;
static volatile int stop;
static pthread_t helper;

static mqd_t open_queue(const char *tag)
{
	struct mq_attr a = { .mq_maxmsg = 8, .mq_msgsize = MSG };
	char name[64];
	mqd_t q;

	snprintf(name, sizeof(name), "/xtalk-%s-%d", tag, (int)getpid());
	q = mq_open(name, O_CREAT | O_EXCL | O_RDWR, 0600, &a);
	if (q == (mqd_t)-1)
		rt_fault("mq_open");
	mq_unlink(name);
	return q;
}

static void *helper_main(void *arg)
{
	char buf[MSG];

	(void)arg;
	for (;;) {
		t_wait = rt_now();
		while (mq_receive(hq, buf, MSG, NULL) < 0 && errno == EINTR)
			;
		t_got = rt_now();
		if (stop)
			return NULL;
	}
}

static void setup(void)
{
	stop = 0;
	own = open_queue("own");
	hq = open_queue("helper");
	helper = rt_thread(helper_main, NULL, 1, -1);
}

static void iter(uint64_t *v)
{
	static const char msg[MSG] = "xtalk-message!!";
	char buf[MSG];
	uint64_t t0 = rt_now(), t1, t2, t3, t4;

	mq_send(own, msg, MSG, 0);
	t1 = rt_now();
	mq_receive(own, buf, MSG, NULL);
	t2 = rt_now();
	t3 = rt_now();
	mq_send(hq, msg, MSG, 0);   /* helper preempts, stamps, blocks again */
	t4 = rt_now();
	v[0] = t1 - t0;
	v[1] = t2 - t1;
	v[2] = t_got > t3 ? t_got - t3 : 0;
	v[3] = t4 > t_wait ? t4 - t_wait : 0;
}

static void teardown(void)
{
	stop = 1;
	mq_send(hq, "x", 1, 0);
	pthread_join(helper, NULL);
	mq_close(own);
	mq_close(hq);
}

static const char *const metrics[] = { "mq_put", "mq_get", "mq_put_wake", "mq_get_wait", NULL };
const struct rt_lat rt_lat_msgq = {
	"msgq", metrics, NULL, "POSIX mq_send/mq_receive, 16-byte messages; switch cases with a priority+1 receiver",
	setup, iter, teardown, 0, 0,
};
