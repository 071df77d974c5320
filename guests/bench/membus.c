/* membus.c - stressor: memory bus load, one word per cache line over a buffer > LLC.
 *
 * Seed 001's "Memory-Load" stress test: accessing only one word of each 64-byte line
 * over a buffer larger than the caches makes every access a line fill from memory,
 * a worst case for the shared memory bus at little CPU cost. size= (default llc*2)
 * bytes, one word every line= bytes (default 64, a multiple of 8); mode=read (default:
 * one 64-bit load per line, clean evictions only) or mode=write (read-modify-write of
 * that word: the lines become dirty, so evictions also write back). One iteration =
 * one pass. Runs until killed or duration_s=; role=measurer records ticks per pass
 * (how much the stressor itself is slowed down). Pressure (XT META work_per_pass,
 * work_unit=accesses): the accesses of one pass, size / line, each one line filled from
 * memory whatever the stride (not the 8 bytes it loads of each, nor a write mode's
 * write-backs). Caveats: the hardware prefetcher
 * follows the constant stride (as it would for the seed's loop), so this is a
 * bandwidth load, not a latency chain (use pointer_chase for that); line= should be
 * the real line size (128 on some arm64 cores) or a multiple of it.
 */
#include "xt.h"

static const struct xt_key keys[] = {
	{ "size", XT_SIZE, NULL, "llc*2" },
	{ "line", XT_SIZE, "[8,1m]", "64" },             /* a multiple of 8 */
	{ "mode", XT_WORD, "read|write", "read" },
	XT_KEYS_END
};
/* past the LLC; a line of 64 streams (bandwidth), a page apart every access opens a new
 * DRAM row (banks, latency); write makes every eviction a write-back */
static const struct xt_key tune[] = {
	{ "size", XT_SIZE, "[llc,llc*8]", "llc*2" },
	{ "line", XT_SIZE, "[64,4k]", "64" },
	{ "mode", XT_WORD, "read|write", "read" },
	XT_KEYS_END
};
static unsigned char *buf;
static size_t size, line;
static bool write_mode;

static int setup(void)
{
	uint64_t ln = xt_key_size("line");

	if (ln % 8)
		xt_badparam("line", "expected a multiple of 8");
	line = (size_t)ln;
	size = (size_t)xt_key_size("size") / line * line;
	if (size == 0)
		xt_badparam("size", "expected at least one line");
	write_mode = !xt_strcmp(xt_key_str("mode"), "write");
	buf = xt_alloc(size);
	if (!buf) {
		xt_set_reason("out of memory for membus");
		return XT_FAIL;
	}
	xt_meta("bytes_per_pass=%lu lines_per_pass=%lu line=%lu mode=%s",
		(unsigned long)size, (unsigned long)(size / line), (unsigned long)line,
		write_mode ? "write" : "read");
	xt_work(size / line, "accesses");
	return XT_PASS;
}

static void exec(void)
{
	unsigned char *p = buf, *end = buf + size;

	if (write_mode) {
		for (; p < end; p += line)
			(*(volatile uint64_t *)p)++;
	} else {
		uint64_t s = 0;
		for (; p < end; p += line)
			s += *(volatile uint64_t *)p;
		xt_keep(s);
	}
}

static const struct xt_case cases[] = {
	{ "membus", "cycles", NULL, NULL, exec, NULL, 10, "duration" },
};

const struct xt_bench xt_bench_membus = {
	.name = "membus", .role = "stressor", .keys = keys, .setup = setup,
	.cases = cases, .ncases = sizeof(cases) / sizeof(cases[0]),
	.kpi = "memory",
	.channels = "membw memlat", .tune = tune,
};
