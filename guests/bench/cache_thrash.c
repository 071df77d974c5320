/* cache_thrash.c - stressor: memset over a buffer larger than the LLC, forever.
 *
 * The thesis's Listing 3.2 (`while (1) memset(buffer, 'A', BUFFER_SIZE)` with the
 * buffer 1.5x the last-level cache): size= (default llc*1.5) bytes, one pass per
 * iteration. As a stressor it runs until killed or duration_s=; run with
 * role=measurer it records the ticks per pass (how much the stressor itself is
 * slowed down). Pressure (XT META work_per_pass work_unit=bytes): the bytes one pass
 * stores, size=. Caveat: xt_memset is a plain 64-bit store loop, not libc's memset.
 */
#include "xt.h"

static const struct xt_key keys[] = { { "size", XT_SIZE, NULL, "llc*1.5" }, XT_KEYS_END };
/* the size picks the level it loads: inside L1, L2, the LLC, or past it (memory) */
static const struct xt_key tune[] = { { "size", XT_SIZE, "[l1/2,llc*4]", "llc*1.5" }, XT_KEYS_END };
static unsigned char *buf;
static size_t size;

static int setup(void)
{
	size = (size_t)xt_key_size("size");
	buf = xt_alloc(size);
	if (!buf) {
		xt_set_reason("out of memory for cache_thrash");
		return XT_FAIL;
	}
	xt_meta("bytes_per_pass=%lu", (unsigned long)size);
	xt_work(size, "bytes");
	return XT_PASS;
}

static void exec(void)
{
	xt_memset(buf, 'A', size);
	xt_barrier();
}

static const struct xt_case cases[] = {
	{ "cache_thrash", "cycles", NULL, NULL, exec, NULL, 10, "duration" },
};

const struct xt_bench xt_bench_cache_thrash = {
	.name = "cache_thrash", .role = "stressor", .keys = keys, .setup = setup,
	.cases = cases, .ncases = sizeof(cases) / sizeof(cases[0]),
	.kpi = "memory",
	.channels = "l1 l2 llc membw", .tune = tune,
};
