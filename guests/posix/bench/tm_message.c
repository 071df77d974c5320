/* tm_message.c - thread-metric message processing: one thread sends a 16-byte message
 * (four 32-bit words, as Thread-Metric) to a POSIX message queue and receives it back,
 * checking the contents; count per round trip. One thread: no fairness check; a
 * corrupted message fails the run.
 */
#include <fcntl.h>
#include <mqueue.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "rt.h"

static mqd_t q;
static volatile int corrupt;

static void setup(unsigned n)
{
	struct mq_attr a = { .mq_maxmsg = 8, .mq_msgsize = 16 };
	char name[64];

	(void)n;
	snprintf(name, sizeof(name), "/xtalk-tm-%d", (int)getpid());
	q = mq_open(name, O_CREAT | O_EXCL | O_RDWR, 0600, &a);
	if (q == (mqd_t)-1)
		rt_fault("mq_open");
	mq_unlink(name);
}

static void op(void)
{
	static uint32_t out[4] = { 0x11, 0x22, 0x33, 0 };
	uint32_t in[4];

	out[3]++;
	if (mq_send(q, (const char *)out, sizeof(out), 0) ||
	    mq_receive(q, (char *)in, sizeof(in), NULL) != sizeof(in) || memcmp(in, out, sizeof(in)))
		corrupt = 1;
}

static const char *check(void)
{
	return corrupt ? "message lost or corrupted" : NULL;
}

const struct rt_tm rt_tm_message = {
	.name = "tm_message", .nthreads = 1, .setup = setup, .op = op, .check = check,
	.method = "POSIX mq_send + mq_receive of a 16-byte message by one thread",
};
