/* tm_memory.c - thread-metric memory allocation: one thread allocates and frees a
 * 128-byte block (malloc/free; Thread-Metric uses a fixed-size pool), touching it;
 * count per pair. One thread: no fairness check.
 */
#include <stdlib.h>
#include "rt.h"

static volatile int failed;

static void *worker(void *arg)
{
	(void)arg;
	while (!tm_stop) {
		volatile char *p = malloc(128);
		if (!p) {
			failed = 1;
			continue;
		}
		p[0] = 1;
		free((void *)p);
		tm_count[0]++;
	}
	return NULL;
}

static int prio(unsigned i, unsigned n)
{
	(void)i;
	(void)n;
	return 1;
}

static const char *check(void)
{
	return failed ? "malloc failed" : NULL;
}

static const char *const keys[] = { "interval_s", NULL };
const struct rt_tm rt_tm_memory = {
	"tm_memory", keys, "malloc(128) + free by one thread",
	1, false, NULL, worker, prio, check,
};
