/* ctx_yield.c - thread context switch by sched_yield (thesis Figure 3.3: "context
 * switch time between threads using k_yield").
 *
 * The main thread and a helper, both SCHED_FIFO at priority+0 on one CPU, take turns:
 * main stamps the clock and yields; the helper, returning from its own yield, stamps
 * again. yield_switch = helper stamp - main stamp: one sched_yield() system call plus
 * the switch to the other thread. Without SCHED_FIFO (sched=other) the CFS yield
 * semantics apply and the value is not a pure switch (see XT META sched=).
 */
#include <sched.h>
#include "rt.h"

static volatile uint64_t t_seen;
static volatile int stop;
static pthread_t helper;

static void *helper_main(void *arg)
{
	(void)arg;
	while (!stop) {
		t_seen = rt_now();
		sched_yield();
	}
	return NULL;
}

static void setup(void)
{
	stop = 0;
	helper = rt_thread(helper_main, NULL, 0, -1);
}

static void iter(uint64_t *v)
{
	uint64_t t0 = rt_now();

	sched_yield();
	v[0] = t_seen > t0 ? t_seen - t0 : 0;
}

static void teardown(void)
{
	stop = 1;
	pthread_join(helper, NULL);
}

static const char *const metrics[] = { "yield_switch", NULL };
const struct rt_lat rt_lat_ctx_yield = {
	"ctx_yield", metrics, NULL, "sched_yield between two SCHED_FIFO threads of equal priority on one CPU",
	setup, iter, teardown, 0, 0,
};
