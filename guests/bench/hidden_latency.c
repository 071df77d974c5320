/* hidden_latency.c - measurer: the clock-tick processing / hidden latency test (seed 001).
 *
 * A busy loop reads the counter back to back. Every gap between two reads above
 * threshold= ticks (default 20x the measured overhead) is something that took the CPU
 * away (timer tick, interrupt, hypervisor, SMI, another VM): it becomes a sample
 * {t = counter when the gap ended, value = gap}. All gaps, small ones included, go into
 * a log2 histogram printed as XT HIST after the window (hist_buckets=, default 40,
 * last = overflow), with META loops= (counter reads), gaps_over=, max_gap= and flushes=.
 * flush_us=P memsets flush_size= bytes (default llc*1.5) every P microseconds, so
 * interrupt handlers run cache-cold (the seed's "with cache flushing" variant); the
 * flush itself is not counted as a gap. Runs duration_s= (default 1 s) or
 * iterations= counter reads; the window (META window_ticks_0) is first to last read.
 * Caveats: the sampling cost is excluded by re-reading the counter after a store, so
 * an interruption inside that store is missed; each gap includes one counter read
 * (~overhead_cycles).
 */
#include "xt.h"

static const struct xt_key keys[] = {
	{ "threshold", XT_U64, NULL, NULL },            /* default: 20 x overhead_cycles */
	{ "hist_buckets", XT_U64, "[2,64]", "40" },      /* 64: XT_HIST_MAX */
	{ "flush_us", XT_DOUBLE, "[0,)", "0" },
	{ "flush_size", XT_SIZE, NULL, "llc*1.5" },
	XT_KEYS_END
};
static struct xt_hist hist;
static uint64_t threshold, flush_ticks, flush_size;
static unsigned char *flush_buf;
static uint64_t loops, over, max_gap, max_gap_t, flushes;

static int setup(void)
{
	uint64_t dflt = xt_cfg.overhead ? xt_cfg.overhead * 20 : 1;
	double flush_us = xt_key_double("flush_us");
	uint64_t nb = xt_key_u64("hist_buckets");

	threshold = xt_param_u64("threshold", dflt);
	xt_hist_init(&hist, (unsigned)nb);
	if (!xt_param_has("iterations") && !xt_param_has("duration_s") && xt_cfg.measurer) {
		if (!xt_cfg.freq_hz)
			xt_badparam("duration_s", "counter frequency unknown: pass freq_hz or iterations");
		xt_cfg.duration_ticks = xt_cfg.freq_hz;      /* default: 1 s */
	}
	if (flush_us > 0) {
		if (!xt_cfg.freq_hz)
			xt_badparam("flush_us", "counter frequency unknown: pass freq_hz");
		flush_ticks = (uint64_t)(flush_us * 1e-6 * (double)xt_cfg.freq_hz);
		flush_ticks = flush_ticks ? flush_ticks : 1;
		flush_size = xt_key_size("flush_size");
		flush_buf = xt_alloc(flush_size);
		if (!flush_buf) {
			xt_set_reason("out of memory for the flush buffer");
			return XT_FAIL;
		}
	}
	xt_meta("threshold_cycles=%lu flush_ticks=%lu flush_bytes=%lu",
		(unsigned long)threshold, (unsigned long)flush_ticks,
		(unsigned long)(flush_ticks ? flush_size : 0));
	return XT_PASS;
}

static long run(void *unused)
{
	const uint64_t thr = threshold, iters = xt_cfg.iterations;
	const bool record = xt_cfg.measurer;
	uint64_t prev, now, gap, n = 0, end = UINT64_MAX, next_flush = UINT64_MAX, check, start;

	(void)unused;
	prev = start = xt_counter();
	if (xt_cfg.duration_ticks)
		end = prev + xt_cfg.duration_ticks;
	if (flush_ticks)
		next_flush = prev + flush_ticks;
	check = end < next_flush ? end : next_flush;
	for (;;) {
		now = xt_counter();
		gap = now - prev;
		xt_hist_add(&hist, gap);
		n++;
		if (gap > thr) {                 /* rare path */
			over++;
			if (gap > max_gap) {
				max_gap = gap;
				max_gap_t = now;
			}
			if (record)
				xt_sample(0, now, gap, 0);
			now = xt_counter();
		}
		if (n == iters)
			break;
		if (now >= check) {              /* rare path: end or flush */
			if (now >= end)
				break;
			xt_memset(flush_buf, (int)n, flush_size);
			flushes++;
			next_flush = now + flush_ticks;
			check = end < next_flush ? end : next_flush;
			now = xt_counter();
		}
		prev = now;
	}
	loops = n;
	xt_cfg.done = n;
	xt_cfg.window_ticks = now - start;
	return XT_PASS;
}

static void report(void)
{
	xt_meta("loops=%lu gaps_over=%lu max_gap=%lu max_gap_t=%lu flushes=%lu",
		(unsigned long)loops, (unsigned long)over, (unsigned long)max_gap,
		(unsigned long)max_gap_t, (unsigned long)flushes);
	xt_hist_print(&hist, 0);
}

static const struct xt_case cases[] = {
	{ "hidden_latency", "cycles", NULL, NULL, NULL, NULL, 0, "gap" },
};

const struct xt_bench xt_bench_hidden_latency = {
	.name = "hidden_latency", .role = "measurer", .keys = keys, .setup = setup,
	.cases = cases, .ncases = 1, .run = run, .report = report,
	.kpi = "kernel",
};
