/* selftest.c - measurer: checks what the workload sees and says pass or fail.
 *
 * Checks, each reported as `XT META check_<name>=pass|fail|skip` with its facts:
 *   console  it is printing this (pass by construction; the host sees the line)
 *   cpus     xt_ncpus() >= 1, and == expect_cpus= when given
 *   memory   xt_alloc of 1m, 2m, 4m, ... up to mem_max= (default 64m) until one
 *            fails; each block must be zeroed and writable (one word per 4 KiB page
 *            checked); fail if the largest block is below mem_min= (default 4m or mem_max)
 *   cache    l1 and llc sizes known (> 0), l1 <= l2 <= l3 where known
 *   freq     the counter frequency in use is > 0; when freq_hz= is given and the
 *            platform has its own figure (native: calibrated against
 *            CLOCK_MONOTONIC_RAW; arm64: CNTFRQ) they agree within freq_tol_pct=
 *            (default 2); platform.h offers no second clock, so that is all
 *   smp      when xt_ncpus() > 1: every other vCPU is started (xt_cpu_start) and, like
 *            vCPU 0, runs unprivileged: counts itself in (atomic add), records
 *            xt_cpu_index() (must be its number), reads the counter 4000 times (never
 *            backwards); vCPU 0 waits up to 2 s; pass when all arrived with the right
 *            index; skip on one vCPU
 *   counter  case 0 `selftest_counter`: one sample = reads= (default 1000) back-to-back
 *            counter reads; fail if the counter ever goes backwards or never moves
 *   timer    case 1 `selftest_timer`: one sample = arm a one-shot timer timer_us=
 *            (default 1000) ahead and spin until its handler runs; fail if it fires
 *            before its deadline or not within 10 periods + 50 ms; skip when the
 *            platform has no timer or timer=0 (native has one: a POSIX timer signal)
 * The run ends status=fail (reason = the first failed check) if any check failed;
 * all checks run regardless. Caveats: xt_alloc never frees in the guests, so the
 * memory check consumes up to ~2 x mem_max; timer samples include the timer period.
 */
#include "xt.h"

static const struct xt_key keys[] = {
	{ "expect_cpus", XT_U64, NULL, "0" },
	{ "mem_max", XT_SIZE, NULL, "64m" },
	{ "mem_min", XT_SIZE, NULL, NULL },              /* default: mem_max, at most 4m */
	{ "freq_tol_pct", XT_DOUBLE, "(0,100]", "2" },
	{ "reads", XT_U64, "[2,100000000]", "1000" },
	{ "timer", XT_BOOL, NULL, "1" },
	{ "timer_us", XT_U64, "[1,10000000]", "1000" },
	XT_KEYS_END
};

static uint64_t reads, timer_ticks, timeout_ticks, mem_max, mem_min, want_cpus;
static double freq_tol;
static bool timer_on;
static const char *first_fail;

/* counter case state */
static uint64_t backwards, stuck, min_step = UINT64_MAX, max_step;
/* timer case state */
static volatile uint64_t fired_at;
static uint64_t armed, fired, missed, early, absent, lat_min = UINT64_MAX, lat_max;

static void fail(const char *why)
{
	if (!first_fail)
		first_fail = why;
}

static const char *verdict(bool ok)
{
	return ok ? "pass" : "fail";
}

/* Words at every 4 KiB in [p, p+n): zero, then writable. */
static bool mem_ok(unsigned char *p, uint64_t n)
{
	bool ok = true;

	for (uint64_t off = 0; off + 8 <= n; off += 4096) {
		volatile uint64_t *q = (volatile uint64_t *)(p + off);
		ok &= *q == 0;
		*q = off ^ 0x5a5a5a5a5a5a5a5aull;
		ok &= *q == (off ^ 0x5a5a5a5a5a5a5a5aull);
	}
	return ok;
}

static void check_memory(void)
{
	uint64_t max = mem_max, min = mem_min;
	uint64_t largest = 0, total = 0, failed_at = 0, blocks = 0;
	bool ok = true;

	for (uint64_t sz = 1u << 20;; sz *= 2) {
		unsigned char *p;

		if (sz > max)
			sz = max;
		p = xt_alloc((size_t)sz);
		if (!p) {
			failed_at = sz;
			break;
		}
		ok &= mem_ok(p, sz);
		largest = sz;
		total += sz;
		blocks++;
		if (sz == max)
			break;
	}
	if (!ok)
		fail("selftest: allocated memory not zeroed or not writable");
	else if (largest < min)
		fail("selftest: cannot allocate mem_min bytes");
	xt_meta("check_memory=%s mem_largest=%lu mem_total=%lu mem_blocks=%lu "
		"mem_failed_at=%lu mem_min=%lu mem_max=%lu", verdict(ok && largest >= min),
		(unsigned long)largest, (unsigned long)total, (unsigned long)blocks,
		(unsigned long)failed_at, (unsigned long)min, (unsigned long)max);
}

static void check_cache(void)
{
	uint64_t l1 = xt_cache_size(1), l2 = xt_cache_size(2), l3 = xt_cache_size(3);
	uint64_t llc = xt_cache_size(0);
	bool ok = l1 > 0 && llc > 0 && (!l2 || l1 <= l2) && (!l3 || (l2 ? l2 : l1) <= l3);

	if (!ok)
		fail("selftest: cache sizes unknown or inconsistent (pass l1_bytes/llc_bytes)");
	xt_meta("check_cache=%s l1=%lu l2=%lu l3=%lu llc=%lu", verdict(ok),
		(unsigned long)l1, (unsigned long)l2, (unsigned long)l3, (unsigned long)llc);
}

static void check_freq(void)
{
	uint64_t use = xt_cfg.freq_hz, plat = xt_counter_hz();
	double dev = 0;
	bool given = xt_param_has("freq_hz"), ok = use > 0;
	long dev_ppm = 0;

	if (ok && given && plat) {
		dev = ((double)use - (double)plat) / (double)plat;
		dev_ppm = (long)(dev * 1e6);
		ok = xt_fabs(dev) * 100 <= freq_tol;
	}
	if (!ok)
		fail(use ? "selftest: freq_hz disagrees with the platform's counter frequency"
			 : "selftest: counter frequency unknown (pass freq_hz)");
	xt_meta("check_freq=%s freq_hz=%lu freq_platform_hz=%lu freq_given=%d "
		"freq_dev_ppm=%ld", verdict(ok), (unsigned long)use, (unsigned long)plat,
		given, dev_ppm);
}

/* smp: one slot per vCPU, written by that vCPU. */
#define SMP_MAX 64
#define SMP_READS 4000
static unsigned smp_arrived;
static struct { volatile unsigned index, done; volatile uint64_t backwards; } smp_slot[SMP_MAX];

static long smp_user(void *arg)
{
	unsigned v = (unsigned)(uintptr_t)arg;
	uint64_t prev = xt_counter(), back = 0;

	smp_slot[v].index = xt_cpu_index();
	__atomic_fetch_add(&smp_arrived, 1, __ATOMIC_SEQ_CST);
	for (unsigned i = 0; i < SMP_READS; i++) {
		uint64_t c = xt_counter();
		back += c < prev;
		prev = c;
	}
	smp_slot[v].backwards = back;
	__atomic_store_n(&smp_slot[v].done, 1, __ATOMIC_RELEASE);
	return 0;
}

static void smp_vcpu(void *arg)
{
	xt_run_unprivileged(smp_user, arg);
}

static void check_smp(void)
{
	unsigned n = xt_ncpus() < SMP_MAX ? xt_ncpus() : SMP_MAX, started = 1, done, wrong = 0;
	uint64_t back = 0, limit = xt_counter() + 2 * (xt_cfg.freq_hz ? xt_cfg.freq_hz : 1000000000);
	bool ok;

	if (n <= 1) {
		xt_meta("check_smp=skip smp_cpus=%u", n);
		return;
	}
	for (unsigned v = 1; v < n; v++)
		started += xt_cpu_start(v, smp_vcpu, (void *)(uintptr_t)v);
	xt_run_unprivileged(smp_user, (void *)0);
	do {
		done = 0;
		for (unsigned v = 0; v < n; v++)
			done += __atomic_load_n(&smp_slot[v].done, __ATOMIC_ACQUIRE);
	} while (done < n && xt_counter() < limit);
	for (unsigned v = 0; v < n; v++)
		if (smp_slot[v].done) {
			wrong += smp_slot[v].index != v;
			back += smp_slot[v].backwards;
		}
	ok = started == n && done == n && __atomic_load_n(&smp_arrived, __ATOMIC_SEQ_CST) == n &&
	     !wrong && !back;
	if (!ok)
		fail("selftest: not every vCPU ran with its own index (smp)");
	xt_meta("check_smp=%s smp_cpus=%u smp_started=%u smp_arrived=%u smp_done=%u "
		"smp_wrong_index=%u smp_backwards=%lu", verdict(ok), n, started,
		__atomic_load_n(&smp_arrived, __ATOMIC_SEQ_CST), done, wrong, (unsigned long)back);
}

/* All parameters first, so a bad one ends the run before any check prints. */
static void params(uint64_t *timer_us)
{
	want_cpus = xt_key_u64("expect_cpus");
	mem_max = xt_key_size("mem_max");
	mem_min = xt_param_has("mem_min") ? xt_key_size("mem_min")
					  : mem_max < (4u << 20) ? mem_max : (4u << 20);
	if (mem_min > mem_max)
		xt_badparam("mem_min", "must not exceed mem_max");
	freq_tol = xt_key_double("freq_tol_pct");
	reads = xt_key_u64("reads");
	timer_on = xt_key_bool("timer");
	*timer_us = xt_key_u64("timer_us");
}

static int setup(void)
{
	uint64_t timer_us;
	unsigned n = xt_ncpus();
	bool ok;

	params(&timer_us);
	ok = n >= 1 && (!want_cpus || n == want_cpus);
	xt_meta("check_console=pass platform=%s arch=%s", xt_platform_name(), xt_arch_name());
	if (!ok)
		fail("selftest: unexpected number of cpus");
	xt_meta("check_cpus=%s cpus=%u expect_cpus=%lu", verdict(ok), n,
		(unsigned long)want_cpus);
	check_memory();
	check_cache();
	check_freq();
	check_smp();
	if (xt_cfg.freq_hz) {
		timer_ticks = (uint64_t)((double)timer_us * 1e-6 * (double)xt_cfg.freq_hz);
		timer_ticks = timer_ticks ? timer_ticks : 1;
		timeout_ticks = 10 * timer_ticks + xt_cfg.freq_hz / 20;
	} else {
		timer_on = false;
	}
	return XT_PASS;
}

static void exec_counter(void)
{
	uint64_t first = xt_counter(), prev = first, lo = UINT64_MAX, hi = 0;

	for (uint64_t i = 1; i < reads; i++) {
		uint64_t c = xt_counter();
		if (c < prev)
			backwards++;
		else {
			lo = c - prev < lo ? c - prev : lo;
			hi = c - prev > hi ? c - prev : hi;
		}
		prev = c;
	}
	stuck += prev == first;
	min_step = lo < min_step ? lo : min_step;
	max_step = hi > max_step ? hi : max_step;
}

static int post_counter(void)
{
	if (backwards)
		fail("selftest: the counter went backwards");
	else if (stuck)
		fail("selftest: the counter does not advance");
	return XT_PASS;                  /* the verdict comes after the last case */
}

static void on_timer(uint64_t now)
{
	fired_at = now;
}

static void exec_timer(void)
{
	uint64_t deadline, limit;

	if (!timer_on)
		return;
	fired_at = 0;
	deadline = xt_counter() + timer_ticks;
	if (!xt_timer_oneshot(deadline, on_timer)) {
		absent++;
		return;
	}
	armed++;
	limit = deadline + timeout_ticks;
	while (!fired_at && xt_counter() < limit)
		xt_barrier();
	if (!fired_at) {
		missed++;
		return;
	}
	fired++;
	if (fired_at < deadline) {
		early++;
		return;
	}
	lat_min = fired_at - deadline < lat_min ? fired_at - deadline : lat_min;
	lat_max = fired_at - deadline > lat_max ? fired_at - deadline : lat_max;
}

static int post_timer(void)
{
	if (early)
		fail("selftest: a timer interrupt came before its deadline");
	else if (missed)
		fail("selftest: a timer interrupt did not arrive");
	if (first_fail) {
		xt_set_reason(first_fail);
		return XT_FAIL;
	}
	return XT_PASS;
}

static void report(void)
{
	xt_meta("check_counter=%s counter_backwards=%lu counter_stuck=%lu "
		"counter_min_step=%lu counter_max_step=%lu", verdict(!backwards && !stuck),
		(unsigned long)backwards, (unsigned long)stuck,
		(unsigned long)(min_step == UINT64_MAX ? 0 : min_step), (unsigned long)max_step);
	xt_meta("check_timer=%s timer_armed=%lu timer_fired=%lu timer_missed=%lu "
		"timer_early=%lu timer_lat_min=%lu timer_lat_max=%lu",
		!timer_on || absent ? "skip" : verdict(!missed && !early && armed),
		(unsigned long)armed, (unsigned long)fired, (unsigned long)missed,
		(unsigned long)early, (unsigned long)(fired ? lat_min : 0),
		(unsigned long)lat_max);
}

static const struct xt_case cases[] = {
	{ "selftest_counter", "cycles", NULL, NULL, exec_counter, post_counter, 100, "duration" },
	{ "selftest_timer", "cycles", NULL, NULL, exec_timer, post_timer, 10, "duration" },
};

const struct xt_bench xt_bench_selftest = {
	.name = "selftest", .role = "measurer", .keys = keys, .setup = setup,
	.cases = cases, .ncases = sizeof(cases) / sizeof(cases[0]), .report = report,
	.kpi = "kernel",
};
