/* ring_flood.c - measurer: writes samples into the ring as fast as it can.
 *
 * A check of the host's sample ingest (benchmarks/bench_ring_ingest.py), not of
 * interference. A sample is one iteration; samples are written in bursts of burst=
 * (default 1) with no work between them. Each burst starts with a counter read: its
 * samples have t = that read and value = the ticks since the previous burst's read per
 * sample of that burst (the first burst: since a read just before it), i.e. the cost of
 * one ring write with its share of a counter read. iterations= counts samples. rate=
 * (samples per second, default 0: as fast as it can) paces the bursts: the burst
 * holding sample n starts no earlier than n / rate seconds after the window began.
 * Caveats: with burst > 1 the samples of a burst share their t; a reader slower than
 * this writer loses samples (the host counts them as lost); without a shared ring they
 * fill the in-memory buffer like any bench's.
 */
#include "xt.h"

static const struct xt_key keys[] = {
	{ "burst", XT_U64, "[1,1048576]", "1" },
	{ "rate", XT_U64, NULL, "0" },
	XT_KEYS_END
};
static uint64_t burst, rate;

static int setup(void)
{
	burst = xt_key_u64("burst");
	rate = xt_key_u64("rate");
	if (rate && !xt_cfg.freq_hz)
		xt_badparam("rate", "needs the counter frequency (pass freq_hz)");
	return XT_PASS;
}

/* The counter value before which sample n may not be written (rate= pacing). */
static uint64_t due(uint64_t first, uint64_t n)
{
	return first + (uint64_t)((double)n * (double)xt_cfg.freq_hz / (double)rate);
}

static long run(void *arg)
{
	const uint64_t iters = xt_cfg.iterations;
	const uint32_t metric = xt_cfg.metric;
	const uint64_t first = xt_counter();
	const uint64_t end = xt_cfg.duration_ticks ? first + xt_cfg.duration_ticks : UINT64_MAX;
	uint64_t n = 0, prev = first, now = first, last_k = 1;

	(void)arg;
	while ((!iters || n < iters) && now < end) {
		uint64_t k = iters && iters - n < burst ? iters - n : burst, per;

		if (rate)
			while (xt_counter() < due(first, n))
				xt_barrier();
		now = xt_counter();
		per = (now - prev + last_k - 1) / last_k;
		for (uint64_t i = 0; i < k; i++)
			xt_sample(metric, now, per, 0);
		n += k;
		prev = now;
		last_k = k;
	}
	xt_cfg.done = n;
	xt_cfg.window_ticks = now - first;
	return XT_PASS;
}

static const struct xt_case cases[] = {
	{ "ring_flood", "cycles", NULL, NULL, NULL, NULL, 100000, "duration" },
};

const struct xt_bench xt_bench_ring_flood = {
	.name = "ring_flood", .role = "measurer", .keys = keys, .setup = setup,
	.cases = cases, .ncases = 1, .run = run,
	.kpi = "kernel",
};
