/* memcpy.c - stressor: memcpy of size= bytes between two buffers, in a loop (seed 004).
 *
 * Seed 004's interfering guests copy blocks of varying size (on the order of L2 or
 * L3, or larger) over and over; size= (default 1m; cache-relative sizes such as l2,
 * llc*0.5, llc*4 work) picks the level the copy loads. One iteration = one copy of
 * the source buffer to the destination buffer (xt_memcpy, 64-bit word loop). Runs until
 * killed or duration_s=; role=measurer records ticks per copy (bandwidth = 2 x
 * bytes_per_pass x freq_hz / value counting read and write) and checks after the loop
 * that the destination equals the source (status=fail otherwise). Pressure (XT META
 * work_per_pass, work_unit=bytes): the bytes one copy reads and writes, 2 x size= (the
 * bandwidth above; the destination's read for ownership is not counted). Caveats: our word
 * loop, not a tuned libc memcpy (no non-temporal stores, no vector registers); the
 * destination is read for ownership before it is written, as with any cached store.
 */
#include "xt.h"

static const struct xt_key keys[] = { { "size", XT_SIZE, "[8,)", "1m" }, XT_KEYS_END };
static const struct xt_key tune[] = { { "size", XT_SIZE, "[l1,llc*4]", "1m" }, XT_KEYS_END };
static uint64_t *src, *dst;
static size_t size;

static int setup(void)
{
	size = (size_t)xt_key_size("size") & ~(size_t)7;
	src = xt_alloc(size);
	dst = xt_alloc(size);
	if (!src || !dst) {
		xt_set_reason("out of memory for the memcpy buffers");
		return XT_FAIL;
	}
	xt_meta("bytes_per_pass=%lu", (unsigned long)size);
	xt_work(2 * (uint64_t)size, "bytes");
	return XT_PASS;
}

static int prep(void)
{
	for (size_t i = 0; i < size / 8; i++)
		src[i] = i * 0x9e3779b97f4a7c15ull;
	return XT_PASS;
}

static void exec(void)
{
	xt_memcpy(dst, src, size);
	xt_barrier();
}

static int post(void)
{
	if (xt_memcmp(dst, src, size)) {
		xt_set_reason("memcpy destination differs from the source");
		return XT_FAIL;
	}
	return XT_PASS;
}

static const struct xt_case cases[] = {
	{ "memcpy", "cycles", prep, NULL, exec, post, 10, "duration" },
};

const struct xt_bench xt_bench_memcpy = {
	.name = "memcpy", .role = "stressor", .keys = keys, .setup = setup,
	.cases = cases, .ncases = sizeof(cases) / sizeof(cases[0]),
	.kpi = "memory",
	.channels = "l2 llc membw", .tune = tune,
	.buffers = 2,  /* source and destination, `size` bytes each */
};
