/* membw.c - measurer: streaming memory bandwidth, read pass and write pass.
 *
 * Over size= bytes (default llc*2, i.e. from memory), metric 0 `membw_read` sums the
 * buffer as 64-bit words (four accumulators), metric 1 `membw_write` stores 64-bit words.
 * A sample = counter ticks for one full pass; bandwidth = bytes_per_pass (META) *
 * freq_hz / value. Caveats: plain C loops (the compiler may vectorise them), no
 * non-temporal stores, so write bandwidth includes the read-for-ownership traffic;
 * smaller size= values measure cache bandwidth instead.
 */
#include "xt.h"

static const struct xt_key keys[] = { { "size", XT_SIZE, "[64,)", "llc*2" }, XT_KEYS_END };
static uint64_t *buf;
static size_t words;

static int setup(void)
{
	uint64_t size = xt_key_size("size") & ~(uint64_t)63;

	words = size / sizeof(uint64_t);
	buf = xt_alloc(size);
	if (!buf) {
		xt_set_reason("out of memory for membw");
		return XT_FAIL;
	}
	xt_meta("bytes_per_pass=%lu", (unsigned long)size);
	return XT_PASS;
}

static int prep(void)
{
	for (size_t i = 0; i < words; i++)
		buf[i] = i;
	return XT_PASS;
}

static void exec_read(void)
{
	uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;

	for (size_t i = 0; i < words; i += 4) {
		s0 += buf[i];
		s1 += buf[i + 1];
		s2 += buf[i + 2];
		s3 += buf[i + 3];
	}
	xt_keep(s0 + s1 + s2 + s3);
}

static void exec_write(void)
{
	static uint64_t pass;
	uint64_t v = ++pass;

	for (size_t i = 0; i < words; i++)
		buf[i] = v + i;
	xt_barrier();
}

static const struct xt_case cases[] = {
	{ "membw_read", "cycles", prep, NULL, exec_read, NULL, 20, "duration" },
	{ "membw_write", "cycles", NULL, NULL, exec_write, NULL, 20, "duration" },
};

const struct xt_bench xt_bench_membw = {
	.name = "membw", .role = "measurer", .keys = keys, .setup = setup,
	.cases = cases, .ncases = sizeof(cases) / sizeof(cases[0]),
	.kpi = "memory",
};
