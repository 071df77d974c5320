/* main.c - xtalk-rt: the POSIX real-time suite's entry point and benchmark table.
 *
 *   xtalk-rt bench=NAME run=ID [role=measurer|stressor] [cpus=0] [priority=50]
 *            [iterations=N] [warmup=N] [duration_s=S] [ring=PATH | ring_gpa= ring_bytes=]
 *            [benchmark parameters]
 * Latency benchmarks (one file each in bench/) and kernel_ops (all of them in one run),
 * thread-metric tests (tm_*), tool wrappers (cyclictest, hackbench, stress_ng), and probe
 * benches (guests/bench: seed 003's dhrystone, cachebench, stream, run by the probe's
 * driver, guests/lib/driver.c, on CLOCK_MONOTONIC ns). Order: set up
 * (mlockall, pin, SCHED_FIFO), XT BEGIN, XT META, ring, XT METRIC, measure, drain or
 * not, XT HIST, XT END. `xtalk-rt list` prints the benchmark names, `xtalk-rt
 * catalogue` the catalogue (guests/lib/catalogue.c): parameters as declared, metrics.
 */
#include <stdio.h>
#include <string.h>
#include "rt.h"

extern const struct rt_lat rt_lat_ctx_yield, rt_lat_sem, rt_lat_mutex, rt_lat_thread,
	rt_lat_suspend, rt_lat_msgq, rt_lat_event, rt_lat_stack, rt_lat_heap;
extern const struct rt_tm rt_tm_coop, rt_tm_preempt, rt_tm_interrupt, rt_tm_message,
	rt_tm_sync, rt_tm_memory;
extern const struct rt_tool rt_tool_cyclictest, rt_tool_hackbench, rt_tool_stress_ng;

static const struct rt_lat *const LAT[] = {
	&rt_lat_ctx_yield, &rt_lat_sem, &rt_lat_mutex, &rt_lat_thread, &rt_lat_suspend,
	&rt_lat_msgq, &rt_lat_event, &rt_lat_stack, &rt_lat_heap,
};
static const struct rt_tm *const TM[] = {
	&rt_tm_coop, &rt_tm_preempt, &rt_tm_interrupt, &rt_tm_message, &rt_tm_sync, &rt_tm_memory,
};
static const struct rt_tool *const TOOL[] = { &rt_tool_cyclictest, &rt_tool_hackbench, &rt_tool_stress_ng };
/* the probe benches mk/posix.mk compiles in (POSIX_PROBE) */
extern const struct xt_bench xt_bench_dhrystone, xt_bench_cachebench, xt_bench_stream;
static const struct xt_bench *const PROBE[] = { &xt_bench_dhrystone, &xt_bench_cachebench, &xt_bench_stream };
#define N(a) (sizeof(a) / sizeof(a[0]))

/* Keys every xtalk-rt benchmark accepts besides guests/lib's common ones. */
static const struct xt_key POSIX_KEYS[] = {
	{ "cpus", XT_TEXT, NULL, NULL },             /* 0,2-3; default: the first allowed CPU */
	{ "priority", XT_U64, "[2,74]", "50" },      /* benchmarks use priority-1 .. +25 */
	{ "platform", XT_TEXT, NULL, NULL },         /* set by the host: linux, native, ... */
	XT_KEYS_END
};

/* The keys of every benchmark of kernel_ops, in one table. */
static const struct xt_key *kernel_ops_keys(void)
{
	static struct xt_key keys[32];
	unsigned n = 0;

	for (unsigned i = 0; i < N(LAT); i++)
		for (const struct xt_key *k = LAT[i]->keys; k && k->name && n < N(keys) - 1; k++)
			keys[n++] = *k;
	keys[n] = (struct xt_key)XT_KEYS_END;
	return keys;
}

static void check_keys(const struct xt_key *bench_keys)
{
	static struct xt_key keys[64];
	unsigned n = 0;
	const struct xt_key *lists[] = { POSIX_KEYS, bench_keys };

	for (unsigned l = 0; l < N(lists); l++)
		for (const struct xt_key *k = lists[l]; k && k->name && n < N(keys) - 1; k++)
			keys[n++] = *k;
	keys[n] = (struct xt_key)XT_KEYS_END;
	xt_params_check(keys);
}

static void catalogue(void)
{
	xt_cat_suite("posix", "xtalk-rt", POSIX_KEYS, NULL);
	rt_lat_catalogue("kernel_ops", LAT, N(LAT), kernel_ops_keys());
	for (unsigned i = 0; i < N(LAT); i++)
		rt_lat_catalogue(LAT[i]->name, &LAT[i], 1, LAT[i]->keys);
	for (unsigned i = 0; i < N(TM); i++)
		rt_tm_catalogue(TM[i]);
	for (unsigned i = 0; i < N(TOOL); i++) {
		xt_cat_bench(TOOL[i]->name, TOOL[i]->role, TOOL[i]->metric ? "kernel" : NULL,
			     TOOL[i]->keys, NULL, 1, NULL, false);
		if (TOOL[i]->metric)
			xt_cat_metric(TOOL[i]->metric, "cycles", TOOL[i]->kind);
	}
	for (unsigned i = 0; i < N(PROBE); i++)
		xt_cat_xt_bench(PROBE[i]);
	xt_cat_end();
}

static void list(void)
{
	printf("kernel_ops");
	for (unsigned i = 0; i < N(LAT); i++)
		printf(" %s", LAT[i]->name);
	for (unsigned i = 0; i < N(TM); i++)
		printf(" %s", TM[i]->name);
	for (unsigned i = 0; i < N(TOOL); i++)
		printf(" %s", TOOL[i]->name);
	for (unsigned i = 0; i < N(PROBE); i++)
		printf(" %s", PROBE[i]->name);
	printf("\n");
}

static void begin(const char *name, uint64_t slots)
{
	xt_begin(name, rt.role, RT_NS);
	rt_meta_env();
	if (!xt_ring_open(RT_NS, xt_param_u64("buffer_slots", slots), 1))
		rt_fail("sample ring unusable");
}

/* A probe bench's run: its environment facts and the console drained before its window
 * (its SCHED_FIFO loop would hold the serial port's interrupt thread off until the end). */
static void probe_ready(void)
{
	rt_meta_sched();
	rt_console_flush();
}

/* The status is computed before xt_reason() is read (argument order is unspecified). */
static void finish(int status, bool with_samples)
{
	xt_end(status, with_samples, xt_reason());
}

int main(int argc, char **argv)
{
	const char *name;

	if (argc == 2 && !strcmp(argv[1], "list")) {
		list();
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "catalogue")) {
		catalogue();
		return 0;
	}
	rt_platform_init(argc, argv);
	xt_params_init(xt_cmdline());
	name = xt_param_str("bench", NULL);
	if (!name)
		xt_badparam("bench", "missing: give bench=NAME (xtalk-rt list)");

	if (!strcmp(name, "kernel_ops")) {
		check_keys(kernel_ops_keys());
		rt_setup(0, true, "measurer");
		begin(name, rt.iterations ? rt.iterations * 32 : 1u << 20);
		finish(rt_lat_run(LAT, N(LAT)), rt.measurer);
	}
	for (unsigned i = 0; i < N(LAT); i++)
		if (!strcmp(name, LAT[i]->name)) {
			check_keys(LAT[i]->keys);
			rt_setup(0, true, "measurer");
			begin(name, rt.iterations ? rt.iterations * RT_LAT_MAX_METRICS : 1u << 20);
			finish(rt_lat_run(&LAT[i], 1), rt.measurer);
		}
	for (unsigned i = 0; i < N(TM); i++)
		if (!strcmp(name, TM[i]->name)) {
			check_keys(rt_tm_keys(TM[i]));
			rt_setup(25, true, "measurer");
			begin(name, 1u << 16);
			finish(rt_tm_run(TM[i]), rt.measurer);
		}
	for (unsigned i = 0; i < N(TOOL); i++)
		if (!strcmp(name, TOOL[i]->name)) {
			check_keys(TOOL[i]->keys);
			rt_setup(0, false, TOOL[i]->role);
			finish(TOOL[i]->run(), rt.measurer && strcmp(name, "stress_ng"));
		}
	for (unsigned i = 0; i < N(PROBE); i++)
		if (!strcmp(name, PROBE[i]->name)) {
			check_keys(PROBE[i]->keys);
			if (xt_param_u64("freq_hz", RT_NS) != RT_NS)
				xt_badparam("freq_hz", "xtalk-rt counts CLOCK_MONOTONIC ns: 1000000000 or none");
			rt_setup(0, true, PROBE[i]->role);
			xt_run_bench(PROBE[i], probe_ready);
		}
	xt_badparam("bench", "unknown benchmark (xtalk-rt list)");
}
