/* tm_coop.c - thread-metric cooperative scheduling: threads= threads (default 5) at the
 * same SCHED_FIFO priority on one CPU, each looping { count++; sched_yield(); }, so
 * they run round robin by yielding. Count per interval per thread; fairness check and
 * starve= as in tm.c.
 */
#include <sched.h>
#include "rt.h"

static void *worker(void *arg)
{
	unsigned i = (unsigned)(uintptr_t)arg;

	while (!tm_stop) {
		tm_count[i]++;
		sched_yield();
	}
	return NULL;
}

const struct rt_tm rt_tm_coop = {
	.name = "tm_coop", .nthreads = 5, .tunable = true, .thread = worker,
	.method = "equal-priority SCHED_FIFO threads, count++ then sched_yield",
};
