/* run.c - the generic measured loop for one case of a bench table.
 *
 * prep once, `warmup` unrecorded iterations, then iterations of: reset (untimed),
 * barrier, counter, barrier, exec, barrier, counter, barrier, and one ring sample {t =
 * counter at end, value = end - start, or for a rate case (xt_cfg.rate) the rate that
 * is: *work x freq_hz / (per x (end - start))}: always for a measurer; for a stressor only
 * when the host gave it a shared ring, which then counts its passes (the ring header's
 * write_seq: the host reads its achieved pressure from it, src/xtalk/running/pressure.py; without
 * one nothing is recorded, so a stressor never fills a buffer). Stops after xt_cfg.iterations
 * (0 = no limit) or once xt_cfg.duration_ticks of counter time have passed since the
 * first measured iteration began (0 = no limit), whichever comes first; both 0 =
 * forever (stressors). xt_cfg.window_ticks = first counter read to last. Then post
 * (verify). Runs via xt_run_unprivileged: no output.
 * Caveat: the overhead of one counter read is included in every value (reported as
 * META overhead_cycles, subtracted by the host where the metric calls for it).
 */
#include "xt.h"

/* A rate case's sample: units of work per second (ticks >= 1: a counter read is in it). */
static uint64_t rate(const struct xt_rate *r, uint64_t ticks)
{
	return (uint64_t)((double)*r->work * (double)xt_cfg.freq_hz / (r->per * (double)ticks) + 0.5);
}

long xt_run_case(void *arg)
{
	const struct xt_case *c = arg;
	const uint64_t iters = xt_cfg.iterations;
	const uint32_t metric = xt_cfg.metric;
	const bool record = xt_cfg.measurer || xt_ring_shared();
	const struct xt_rate *r = xt_cfg.rate;
	uint64_t n = 0, end = UINT64_MAX, t0, t1, first = 0;
	int st;

	xt_cfg.done = 0;
	if (c->prep && (st = c->prep()) != XT_PASS)
		return st;
	for (uint64_t i = 0; i < xt_cfg.warmup; i++) {
		if (c->reset)
			c->reset();
		c->exec();
	}
	if (xt_cfg.duration_ticks)
		end = xt_counter() + xt_cfg.duration_ticks;
	while (!iters || n < iters) {
		if (c->reset)
			c->reset();
		xt_barrier();
		t0 = xt_counter();
		xt_barrier();
		c->exec();
		xt_barrier();
		t1 = xt_counter();
		xt_barrier();
		if (!n++)
			first = t0;
		if (record)
			xt_sample(metric, t1, r ? rate(r, t1 - t0) : t1 - t0, 0);
		if (t1 >= end)
			break;
	}
	xt_cfg.done = n;
	xt_cfg.window_ticks = n ? t1 - first : 0;
	return c->post ? c->post() : XT_PASS;
}
