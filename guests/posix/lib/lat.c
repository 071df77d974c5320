/* lat.c - the driver of the latency benchmarks (struct rt_lat).
 *
 * For each benchmark: XT METRIC per metric (unit cycles = ns at freq_hz 1e9), setup
 * (threads, kernel objects), `warmup` unrecorded iterations, then iterations of
 * iter(v) -> one ring sample per metric per iteration {t = clock after the iteration,
 * value = v[i] ns} and a log2 histogram per metric (XT HIST at the end). An iteration
 * prints nothing (ring writes are plain memory stores). Stops after iterations= (default:
 * the benchmark's max_iterations, else 10000; iterations=0: no count limit) or when the
 * benchmark's share of duration_s (duration_s / number of benchmarks) has passed,
 * whichever comes first. A benchmark with idle_us sleeps that long after each iteration
 * (outside the measured part): thread create/exit leaves work to lower-priority kernel
 * threads (on PREEMPT_RT, RCU frees task structs and stacks there), and a CPU never idle
 * at SCHED_FIFO would exhaust memory (pthread_create fails with EAGAIN).
 * Each metric's window (XT META window_ticks_<id>=, ns) runs from the clock before the
 * first measured iteration to the clock after the last.
 * Caveat: every value includes one clock read (XT META overhead_cycles=, not subtracted).
 */
#include <string.h>
#include "rt.h"

#define UNIT "cycles"
#define KIND "duration"
#define KPI "kernel"

void rt_lat_catalogue(const char *name, const struct rt_lat *const *benches, unsigned n,
		      const struct xt_key *keys)
{
	xt_cat_bench(name, "measurer", KPI, keys, NULL, 1, NULL, false);
	for (unsigned b = 0; b < n; b++)
		for (const char *const *m = benches[b]->metrics; *m; m++)
			xt_cat_metric(*m, UNIT, KIND);
}

int rt_lat_run(const struct rt_lat *const *benches, unsigned n)
{
	static struct xt_hist hist[RT_LAT_MAX_METRICS * 16];
	unsigned base = 0;
	uint64_t share = rt.duration_s > 0 ? (uint64_t)(rt.duration_s * 1e9 / n) : 0;
	for (unsigned b = 0; b < n; b++) {
		const struct rt_lat *l = benches[b];
		uint64_t iters = xt_param_has("iterations") ? rt.iterations
			: l->max_iterations ? l->max_iterations : RT_LAT_ITERATIONS;
		unsigned m = 0;

		while (l->metrics[m])
			m++;
		if (m > RT_LAT_MAX_METRICS || base + m > sizeof(hist) / sizeof(hist[0]))
			rt_fail("too many metrics");
		xt_meta("bench_%s_method=\"%s\"", l->name, l->method);
		for (unsigned i = 0; i < m; i++) {
			xt_metric(base + i, l->metrics[i], UNIT, KIND, KPI);
			xt_hist_init(&hist[base + i], 40);
		}
		rt_console_flush();
		l->setup();
		for (uint64_t i = 0; i < rt.warmup; i++) {
			uint64_t v[RT_LAT_MAX_METRICS];
			l->iter(v);
			if (l->idle_us)
				rt_sleep_until(rt_now() + l->idle_us * 1000);
		}
		uint64_t start = rt_now(), done = 0, t;
		for (;;) {
			uint64_t v[RT_LAT_MAX_METRICS];

			l->iter(v);
			t = rt_now();
			if (l->idle_us)
				rt_sleep_until(t + l->idle_us * 1000);
			for (unsigned i = 0; i < m && rt.measurer; i++) {
				xt_sample(base + i, t, v[i], 0);
				xt_hist_add(&hist[base + i], v[i]);
			}
			done++;
			if ((iters && done >= iters) || (share && t - start >= share) || (!iters && !share))
				break;
		}
		if (l->teardown)
			l->teardown();
		xt_meta("bench_%s_iterations=%lu", l->name, (unsigned long)done);
		for (unsigned i = 0; i < m; i++)
			xt_window(base + i, t - start);
		base += m;
	}
	xt_ring_drain();
	for (unsigned i = 0; i < base && rt.measurer; i++)
		xt_hist_print(&hist[i], i);
	return XT_PASS;
}
