/* heap.c - heap alloc and free (thesis Figure 3.3: "alloc memory from heap then free
 * that memory"; Zephyr reports the average, we keep every sample).
 *
 * heap_alloc / heap_free: malloc(size) and free of it, each timed (size=, default 64
 * bytes). mlockall(MCL_FUTURE) and the warmup keep page faults out of the samples.
 */
#include <stdlib.h>
#include "rt.h"

static size_t size;

static void setup(void)
{
	size = (size_t)xt_key_size("size");
}

static void iter(uint64_t *v)
{
	uint64_t t0 = rt_now(), t1, t2;
	volatile char *p = malloc(size);

	t1 = rt_now();
	if (!p)
		rt_fail("malloc failed");
	p[0] = 1;
	free((void *)p);
	t2 = rt_now();
	v[0] = t1 - t0;
	v[1] = t2 - t1;
}

static const char *const metrics[] = { "heap_alloc", "heap_free", NULL };
static const struct xt_key keys[] = { { "size", XT_SIZE, "[1,)", "64" }, XT_KEYS_END };
const struct rt_lat rt_lat_heap = {
	"heap", metrics, keys, "glibc malloc/free of size= bytes",
	setup, iter, NULL, 0, 0,
};
