/* driver.c - runs one bench of a case table: xt_run_bench (main.c's xt_main for the
 * probe platforms, xtalk-rt for the probe benches it carries).
 *
 * Resolves the run configuration from the common keys, prints XT BEGIN, measures the
 * back-to-back counter cost (median of 1000 pairs, run unprivileged) as XT META
 * overhead_cycles=, runs the bench's setup, declares each case's metric (XT METRIC with
 * its kind and the bench's KPI), runs the cases (each case = one metric id, followed by
 * XT META window_ticks_<id>=, its measured window; a custom run loop that does not set
 * it is timed around the call), then prints histograms / drained samples and XT END.
 * Role measurer records one sample per iteration; role stressor records one only into a
 * shared ring the host gave it (its pass counter, run.c), else nothing, and by default runs
 * until killed. The caller has checked the parameters.
 */
#include "xt.h"

#define OVH_PAIRS 1000
#define DEFAULT_BUFFER_SLOTS 65536
#define MAX_AUTO_BUFFER_SLOTS (1u << 22)

struct xt_cfg xt_cfg;
static uint64_t ovh[OVH_PAIRS];

static long measure_overhead(void *unused)
{
	(void)unused;
	for (unsigned i = 0; i < OVH_PAIRS; i++) {
		uint64_t a, b;
		xt_barrier();
		a = xt_counter();
		xt_barrier();
		b = xt_counter();
		xt_barrier();
		ovh[i] = b - a;
	}
	xt_sort_u64(ovh, OVH_PAIRS);
	return 0;
}

/* Iterations for a case: iterations= if given; else unlimited when duration_s= is
 * given or for stressors; else the case's default. */
static uint64_t case_iterations(const struct xt_case *c)
{
	if (xt_param_has("iterations"))
		return xt_param_u64("iterations", 0);
	if (xt_param_has("duration_s") || !xt_cfg.measurer)
		return 0;
	return c->iterations;
}

/* Slots of the in-memory ring used when there is no shared ring: every sample of a
 * bounded run (capped), DEFAULT_BUFFER_SLOTS for unbounded or custom loops. */
static uint64_t auto_slots(const struct xt_bench *b)
{
	uint64_t total = 0;

	if (!xt_cfg.measurer)
		return 1;
	if (b->run)
		return DEFAULT_BUFFER_SLOTS;
	for (unsigned i = 0; i < b->ncases; i++) {
		uint64_t it = case_iterations(&b->cases[i]);
		if (it == 0)
			return DEFAULT_BUFFER_SLOTS;
		total += it;
	}
	return total == 0 ? 1 : total > MAX_AUTO_BUFFER_SLOTS ? MAX_AUTO_BUFFER_SLOTS : total;
}

void xt_run_bench(const struct xt_bench *b, void (*ready)(void))
{
	const char *role = xt_param_str("role", b->role);
	double dur;
	uint64_t slots;
	int status = XT_PASS;

	xt_cfg.measurer = !xt_strcmp(role, "measurer");
	xt_cfg.freq_hz = xt_param_has("freq_hz") ? xt_param_u64("freq_hz", 0) : xt_counter_hz();
	dur = xt_key_double("duration_s");
	if (dur > 0 && xt_cfg.freq_hz == 0)
		xt_badparam("duration_s", "counter frequency unknown: pass freq_hz");
	xt_cfg.duration_ticks = (uint64_t)(dur * (double)xt_cfg.freq_hz);
	xt_cfg.warmup = xt_key_u64("warmup");
	for (unsigned i = 0; i < b->ncases; i++)
		(void)case_iterations(&b->cases[i]);    /* validate iterations= early */
	if (b->rates && xt_cfg.freq_hz == 0)
		xt_badparam("freq_hz", "counter frequency unknown (a rate needs it): pass freq_hz");

	xt_begin(b->name, role, xt_cfg.freq_hz);
	xt_run_unprivileged(measure_overhead, NULL);
	xt_cfg.overhead = ovh[OVH_PAIRS / 2];
	xt_meta("overhead_cycles=%lu overhead_min=%lu", (unsigned long)xt_cfg.overhead,
		(unsigned long)ovh[0]);
	xt_meta("llc_bytes=%lu l3_bytes=%lu l2_bytes=%lu l1_bytes=%lu shared_bytes=%lu cpus=%u",
		(unsigned long)xt_cache_size(0), (unsigned long)xt_cache_size(3),
		(unsigned long)xt_cache_size(2), (unsigned long)xt_cache_size(1),
		(unsigned long)xt_cache_size(XT_SHARED), xt_ncpus());
	if (b->setup && (status = b->setup()) != XT_PASS)
		xt_end(status, false, xt_reason());

	slots = xt_param_u64("buffer_slots", auto_slots(b));
	if (!xt_ring_open(xt_cfg.freq_hz, slots))
		xt_end(XT_FAIL, false, "sample ring unusable");
	for (unsigned i = 0; i < b->ncases && xt_cfg.measurer; i++)
		xt_metric(i, b->cases[i].name, b->cases[i].unit, b->cases[i].kind, b->kpi);
	xt_meta("ready=1");     /* set up (buffers allocated and zeroed): run.wait_for_stressors */
	if (ready)
		ready();

	for (unsigned i = 0; i < b->ncases && status == XT_PASS; i++) {
		const struct xt_case *c = &b->cases[i];
		uint64_t t = xt_counter();
		xt_cfg.metric = i;
		xt_cfg.iterations = case_iterations(c);
		xt_cfg.window_ticks = 0;
		xt_cfg.rate = b->rates && b->rates[i].work ? &b->rates[i] : NULL;
		status = (int)xt_run_unprivileged(b->run ? b->run : xt_run_case,
						  (void *)(uintptr_t)c);
		if (b->run && !xt_cfg.window_ticks)
			xt_cfg.window_ticks = xt_counter() - t;
		if (xt_cfg.window_ticks)
			xt_window(i, xt_cfg.window_ticks);
	}
	if (b->report)
		b->report();
	xt_ring_drain();
	if (status != XT_PASS && xt_reason())
		xt_error(NULL, xt_reason());
	xt_end(status, xt_cfg.measurer, xt_reason());
}
