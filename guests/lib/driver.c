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
 * vcpus=N (N > 1, benches marked smp only): the cases run on vCPUs 0 .. N-1 at once,
 * each with its own configuration (xt_cfgs) and metric ids (vCPU v's case i is metric
 * v x ncases + i, named <case>_vcpu<v>); setup and report run once, on vCPU 0; the
 * other vCPUs are started (xt_cpu_start) after the METRIC lines and ready=1; every vCPU
 * waits at a rendezvous until all have arrived before its first case (a thread that
 * starts late must not find the others' windows over: the lock bench's 2,000
 * acquisitions took less than one vCPU's start), and vCPU 0 waits for all of them to
 * finish before the windows are printed.
 */
#include "xt.h"

#define OVH_PAIRS 1000
#define DEFAULT_BUFFER_SLOTS 65536
#define MAX_AUTO_BUFFER_SLOTS (1u << 22)

struct xt_config xt_cfgs[XT_MAX_CPUS];
static uint64_t ovh[OVH_PAIRS];
static unsigned nvcpus = 1;
static const struct xt_bench *running;
static volatile int vcpu_status[XT_MAX_CPUS];
static volatile unsigned vcpus_done;
static volatile unsigned vcpus_arrived;

unsigned xt_vcpus(void)
{
	return nvcpus;
}

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
 * bounded run on all its vCPUs (capped), DEFAULT_BUFFER_SLOTS for unbounded or custom loops. */
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
		total += it * nvcpus;
	}
	return total == 0 ? 1 : total > MAX_AUTO_BUFFER_SLOTS ? MAX_AUTO_BUFFER_SLOTS : total;
}

/* Runs the bench's cases on the calling vCPU (its xt_cfg set up by xt_run_bench);
 * returns the first status that is not a pass. */
static int run_cases(const struct xt_bench *b)
{
	int status = XT_PASS;

	for (unsigned i = 0; i < b->ncases && status == XT_PASS; i++) {
		const struct xt_case *c = &b->cases[i];
		uint64_t t = xt_counter();
		xt_cfg.metric = xt_cfg.metric_base + i;
		xt_cfg.iterations = case_iterations(c);
		xt_cfg.window_ticks = 0;
		xt_cfg.rate = b->rates && b->rates[i].work ? &b->rates[i] : NULL;
		status = (int)xt_run_unprivileged(b->run ? b->run : xt_run_case,
						  (void *)(uintptr_t)c);
		if (b->run && !xt_cfg.window_ticks)
			xt_cfg.window_ticks = xt_counter() - t;
		xt_cfg.window_ticks_of[i] = xt_cfg.window_ticks;
	}
	return status;
}

/* Returns once every vCPU of the bench has called it: their cases start together. */
static void rendezvous(void)
{
	__atomic_fetch_add(&vcpus_arrived, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&vcpus_arrived, __ATOMIC_ACQUIRE) < nvcpus)
		xt_cpu_relax();
}

/* A vCPU other than 0: its cases, then its status for vCPU 0 to collect. */
static void vcpu_main(void *arg)
{
	unsigned v = (unsigned)(uintptr_t)arg;

	rendezvous();
	vcpu_status[v] = run_cases(running);
	__atomic_fetch_add(&vcpus_done, 1, __ATOMIC_RELEASE);
}

/* The vCPUs the bench runs on: vcpus=, checked against the bench and the platform. */
static unsigned vcpus_wanted(const struct xt_bench *b)
{
	unsigned n = (unsigned)xt_key_u64("vcpus");
	static char why[120];

	if (n > 1 && !b->smp) {
		xt_snprintf(why, sizeof(why), "bench %s runs on one vCPU (its state is not per vCPU)", b->name);
		xt_badparam("vcpus", why);
	}
	if (n > xt_ncpus() || n > XT_MAX_CPUS) {
		xt_snprintf(why, sizeof(why), "%u vCPUs asked, this platform can run %u", n, xt_ncpus());
		xt_badparam("vcpus", why);
	}
	return n;
}

void xt_run_bench(const struct xt_bench *b, void (*ready)(void))
{
	const char *role = xt_param_str("role", b->role);
	double dur;
	uint64_t slots;
	int status = XT_PASS;

	if (b->ncases > XT_MAX_CASES)   /* each vCPU keeps every case's window (xt_config) */
		xt_end(XT_FAIL, false, "bench has more cases than XT_MAX_CASES");
	nvcpus = vcpus_wanted(b);
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
	if (!xt_ring_open(xt_cfg.freq_hz, slots, nvcpus))
		xt_end(XT_FAIL, false, "sample ring unusable");
	for (unsigned v = 0; v < nvcpus && xt_cfg.measurer; v++)
		for (unsigned i = 0; i < b->ncases; i++)
			if (nvcpus == 1)
				xt_metric(i, b->cases[i].name, b->cases[i].unit, b->cases[i].kind, b->kpi);
			else
				xt_metric_vcpu(v * b->ncases + i, b->cases[i].name, v, b->cases[i].unit,
					       b->cases[i].kind, b->kpi);
	xt_meta("ready=1");     /* set up (buffers allocated and zeroed): run.wait_for_stressors */
	if (ready)
		ready();

	running = b;
	for (unsigned v = 1; v < nvcpus; v++) {
		xt_cfgs[v] = xt_cfgs[0];
		xt_cfgs[v].metric_base = v * b->ncases;
		if (!xt_cpu_start(v, vcpu_main, (void *)(uintptr_t)v)) {
			xt_error("vcpus", "a vCPU did not start");
			xt_end(XT_FAIL, false, "vCPU start failed");
		}
	}
	rendezvous();
	status = run_cases(b);
	while (__atomic_load_n(&vcpus_done, __ATOMIC_ACQUIRE) < nvcpus - 1)
		xt_cpu_relax();
	for (unsigned v = 0; v < nvcpus; v++) {
		if (status == XT_PASS)
			status = vcpu_status[v];
		for (unsigned i = 0; i < b->ncases; i++)
			if (xt_cfgs[v].window_ticks_of[i])
				xt_window(v * b->ncases + i, xt_cfgs[v].window_ticks_of[i]);
	}
	if (b->report)
		b->report();
	xt_ring_drain();
	if (status != XT_PASS && xt_reason())
		xt_error(NULL, xt_reason());
	xt_end(status, xt_cfg.measurer, xt_reason());
}
