/* tm_memory.c - thread-metric memory allocation: one thread allocates and frees a
 * 128-byte block (malloc/free; Thread-Metric uses a fixed-size pool), touching it;
 * count per pair (a failed malloc counts too, and fails the run). One thread: no
 * fairness check.
 */
#include <stdlib.h>
#include "rt.h"

static volatile int failed;

static void op(void)
{
	volatile char *p = malloc(128);

	if (!p) {
		failed = 1;
		return;
	}
	p[0] = 1;
	free((void *)p);
}

static const char *check(void)
{
	return failed ? "malloc failed" : NULL;
}

const struct rt_tm rt_tm_memory = {
	.name = "tm_memory", .nthreads = 1, .op = op, .check = check,
	.method = "malloc(128) + free by one thread",
};
