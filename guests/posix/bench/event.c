/* event.c - event send/wait/wake (thesis Figure 3.3: "send and receive events", "wait
 * for events (and context switch)", "wake and switch to a thread waiting for events").
 *
 * Events are eventfd counters (write = send, blocking read = wait).
 * event_send_recv: write then read on the main thread's own eventfd (no switch).
 * event_wake: main writes the eventfd a priority+1 helper blocks on; value = helper's
 *   stamp after read returns - main's stamp before write.
 * event_wait: the helper reads again (blocks); value = main's stamp when it runs -
 *   the helper's stamp before read.
 */
#include <errno.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include "rt.h"

static int own = -1, hfd = -1;
static volatile uint64_t t_wait, t_got;
static volatile int stop;
static pthread_t helper;

static void *helper_main(void *arg)
{
	uint64_t x;

	(void)arg;
	for (;;) {
		t_wait = rt_now();
		while (read(hfd, &x, sizeof(x)) < 0 && errno == EINTR)
			;
		t_got = rt_now();
		if (stop)
			return NULL;
	}
}

static void setup(void)
{
	stop = 0;
	own = eventfd(0, 0);
	hfd = eventfd(0, 0);
	if (own < 0 || hfd < 0)
		rt_fault("eventfd");
	helper = rt_thread(helper_main, NULL, 1, -1);
}

static void iter(uint64_t *v)
{
	uint64_t one = 1, x, t0 = rt_now(), t1, t2, t3;

	if (write(own, &one, sizeof(one)) != sizeof(one) || read(own, &x, sizeof(x)) != sizeof(x))
		rt_fault("eventfd write/read");
	t1 = rt_now();
	t2 = rt_now();
	if (write(hfd, &one, sizeof(one)) != sizeof(one))   /* helper preempts */
		rt_fault("eventfd write");
	t3 = rt_now();
	v[0] = t1 - t0;
	v[1] = t_got > t2 ? t_got - t2 : 0;
	v[2] = t3 > t_wait ? t3 - t_wait : 0;
}

static void teardown(void)
{
	uint64_t one = 1;

	stop = 1;
	if (write(hfd, &one, sizeof(one)) < 0)
		return;
	pthread_join(helper, NULL);
	close(own);
	close(hfd);
}

static const char *const metrics[] = { "event_send_recv", "event_wake", "event_wait", NULL };
const struct rt_lat rt_lat_event = {
	"event", metrics, NULL, "eventfd write/read; switch cases with a priority+1 reader, one CPU",
	setup, iter, teardown, 0, 0,
};
