/* sched_metric.c - measurer: thread-metric's preemptive scheduling test (thesis 3.4.3,
 * Listing 3.3) on a minimal scheduler of our own.
 *
 * threads= (default 5) threads with fixed priorities 0 (lowest) .. n-1 run on a tiny
 * priority scheduler built on xt_ctx_switch (platform.h): resume(k) makes k ready and,
 * k being of higher priority than the caller, switches to it at once (thread-metric's
 * "preemption"); suspend() switches to the highest-priority ready thread. As in
 * tm_preemptive_scheduling_test: thread 0 loops { resume(1); count0++ }, thread i
 * (0 < i < n-1) loops { resume(i+1); count_i++; suspend() }, thread n-1 loops
 * { count++; suspend() } - every round is 2(n-1) context switches and one increment
 * per thread. All of it runs unprivileged (ring 3 / EL0 / user space).
 * Reporting: every interval_s= (default 5, fractions allowed) the timer interrupt (the
 * reporter, preempting whichever thread runs) snapshots all counters; thread 0 then
 * records one sample {t = interrupt time, value = sum of the counts in the interval}
 * (metric `sched_count`) and checks fairness. tick=poll (or a platform without
 * xt_timer_oneshot) makes thread 0 read the counter once per round instead.
 * Fairness: a thread whose count in an interval is below fair_pct= (default 90) % of
 * the threads' mean minus one (the round in progress at the boundary) fails the run:
 * XT END status=fail reason="sched_metric: thread K ...". starve=K (1..n-1) makes the
 * scheduler drop every other resume of thread K (a lost wake-up), so K and the threads
 * it resumes run half as often: the check must fail.
 * Stops after iterations= intervals (default 12) or at the first interval end at or
 * after duration_s=. After the window: META intervals= unfair_intervals= counts=.
 * Caveats: switching is cooperative between the threads (no time slicing: thread-metric's
 * preemption is by priority on resume); the timer only preempts for the report, and a
 * sample's interval boundary is the interrupt's arrival, so one round may straddle it.
 */
#include "xt.h"

#define MAX_THREADS 16
static const struct xt_key keys[] = {
	{ "threads", XT_U64, "[2,16]", "5" },            /* 16: MAX_THREADS */
	{ "interval_s", XT_DOUBLE, "(0,86400]", "5" },
	{ "starve", XT_U64, "[1,15]", NULL },             /* default: none */
	{ "tick", XT_WORD, "timer|poll", "timer" },
	{ "fair_pct", XT_U64, "[1,100]", "90" },
	{ "timeout_ms", XT_DOUBLE, "(0,1e6]", "1000" },
	XT_KEYS_END
};
#define STACK_BYTES (64u << 10)          /* room for a native signal frame (timer tick) */

struct thread {
	struct xt_ctx ctx;
	volatile uint64_t count;
	bool ready;
	uint64_t wakeups;
	void *stack;
};
static struct thread th[MAX_THREADS];
static struct xt_ctx main_ctx;
static unsigned nthreads, cur, starve_k;
static uint64_t interval, timeout, fair_pct;
static bool use_timer;
/* the tick: written by the timer handler, read by thread 0 */
static volatile uint64_t tick_seq, snap_t, snap[MAX_THREADS];
static uint64_t seen_seq, next_tick, t_start, prev[MAX_THREADS];
/* results */
static uint64_t intervals, unfair, total[MAX_THREADS];
static bool tick_lost;
static char reason[200];

static int setup(void)
{
	double iv = xt_key_double("interval_s"), tmo = xt_key_double("timeout_ms");
	const char *tick = xt_key_str("tick");
	uint64_t n = xt_key_u64("threads"), k = xt_param_u64("starve", 0);

	if (k >= n)
		xt_badparam("starve", "expected a thread 1..threads-1 (thread 0 is never resumed)");
	fair_pct = xt_key_u64("fair_pct");
	if (!xt_cfg.freq_hz)
		xt_badparam("interval_s", "counter frequency unknown: pass freq_hz");
	nthreads = (unsigned)n;
	starve_k = (unsigned)k;
	interval = (uint64_t)(iv * (double)xt_cfg.freq_hz);
	interval = interval ? interval : 1;
	timeout = (uint64_t)(tmo * 1e-3 * (double)xt_cfg.freq_hz);
	use_timer = !xt_strcmp(tick, "timer") && xt_timer_oneshot(0, NULL);
	for (unsigned i = 0; i < nthreads; i++) {
		th[i].stack = xt_alloc(STACK_BYTES);
		if (!th[i].stack) {
			xt_set_reason("sched_metric: out of memory for thread stacks");
			return XT_FAIL;
		}
	}
	xt_meta("threads=%u interval_ticks=%lu tick=%s starve=%u fair_pct=%lu", nthreads,
		(unsigned long)interval, use_timer ? "timer" : "poll", starve_k,
		(unsigned long)fair_pct);
	return XT_PASS;
}

/* ---- the scheduler: priority = thread number ---- */
static void schedule(void)
{
	unsigned next = 0, prev_cur;

	for (unsigned k = nthreads - 1; k > 0; k--)
		if (th[k].ready) {
			next = k;
			break;
		}
	if (next != cur) {
		prev_cur = cur;
		cur = next;
		xt_ctx_switch(&th[prev_cur].ctx, &th[next].ctx);
	}
}

static void resume(unsigned k)
{
	if (k == starve_k && (th[k].wakeups++ & 1))
		return;                          /* starve=K: this wake-up is lost */
	th[k].ready = true;
	if (k > cur)
		schedule();
}

static void suspend_self(void)
{
	th[cur].ready = false;
	schedule();
}

/* ---- the reporter ---- */
static void on_tick(uint64_t now)
{
	for (unsigned k = 0; k < nthreads; k++)
		snap[k] = th[k].count;
	snap_t = now;
	tick_seq = tick_seq + 1;
}

/* Thread 0, at an interval boundary: sample, fairness, next tick. True = stop. */
static bool interval_end(void)
{
	uint64_t c[MAX_THREADS], t, sum = 0;
	double mean;

	if (use_timer) {
		seen_seq = tick_seq;
		t = snap_t;
		for (unsigned k = 0; k < nthreads; k++)
			c[k] = snap[k];
	} else {
		t = xt_counter();
		for (unsigned k = 0; k < nthreads; k++)
			c[k] = th[k].count;
	}
	for (unsigned k = 0; k < nthreads; k++)
		sum += c[k] - prev[k];
	mean = (double)sum / nthreads;
	for (unsigned k = 0; k < nthreads; k++) {
		uint64_t d = c[k] - prev[k];
		if ((double)d < mean * (double)fair_pct / 100.0 - 1.0) {
			if (!unfair++)
				xt_snprintf(reason, sizeof(reason),
					    "sched_metric: thread %u ran %lu times in interval %lu, "
					    "below %lu%% of the mean %lu", k, (unsigned long)d,
					    (unsigned long)intervals, (unsigned long)fair_pct,
					    (unsigned long)mean);
			break;
		}
	}
	for (unsigned k = 0; k < nthreads; k++) {
		total[k] += c[k] - prev[k];
		prev[k] = c[k];
	}
	if (xt_cfg.measurer)
		xt_sample(xt_cfg.metric, t, sum, 0);
	intervals++;
	xt_cfg.done = intervals;
	if ((xt_cfg.iterations && intervals >= xt_cfg.iterations) ||
	    (xt_cfg.duration_ticks && t - t_start >= xt_cfg.duration_ticks))
		return true;
	next_tick += interval;
	if (use_timer)
		xt_timer_oneshot(next_tick, on_tick);
	return false;
}

static void thread0(void *unused)
{
	uint64_t rounds = 0;

	(void)unused;
	for (;;) {
		resume(1);
		th[0].count++;
		if (use_timer) {
			if (tick_seq != seen_seq) {
				if (interval_end())
					break;
			} else if (!(++rounds & 0xffff) && xt_counter() > next_tick + interval + timeout) {
				tick_lost = true;        /* the reporter's interrupt never came */
				break;
			}
		} else if (xt_counter() >= next_tick && interval_end()) {
			break;
		}
	}
	xt_ctx_switch(&th[0].ctx, &main_ctx);
}

static void worker(void *arg)
{
	const unsigned me = (unsigned)(uintptr_t)arg;

	for (;;) {
		if (me + 1 < nthreads)
			resume(me + 1);
		th[me].count++;
		suspend_self();
	}
}

static long run(void *unused)
{
	(void)unused;
	for (unsigned k = 0; k < nthreads; k++) {
		th[k].count = 0;
		th[k].ready = k == 0;
		th[k].wakeups = 0;
		prev[k] = 0;
		xt_ctx_init(&th[k].ctx, th[k].stack, STACK_BYTES, k ? worker : thread0,
			    (void *)(uintptr_t)k);
	}
	cur = 0;
	seen_seq = tick_seq;
	t_start = xt_counter();
	next_tick = t_start + interval;
	if (use_timer)
		xt_timer_oneshot(next_tick, on_tick);
	xt_ctx_switch(&main_ctx, &th[0].ctx);
	if (use_timer)
		xt_timer_oneshot(0, NULL);
	if (tick_lost) {
		xt_set_reason("sched_metric: the reporter's timer interrupt did not arrive");
		return XT_FAIL;
	}
	if (unfair) {
		xt_set_reason(reason);
		return XT_FAIL;
	}
	return XT_PASS;
}

static void report(void)
{
	char counts[MAX_THREADS * 22] = "";
	size_t n = 0;

	for (unsigned k = 0; k < nthreads && n < sizeof(counts); k++)
		n += (size_t)xt_snprintf(counts + n, sizeof(counts) - n, k ? ",%lu" : "%lu",
					 (unsigned long)total[k]);
	xt_meta("intervals=%lu unfair_intervals=%lu counts=%s", (unsigned long)intervals,
		(unsigned long)unfair, counts);
}

static const struct xt_case cases[] = {
	{ "sched_count", "count", NULL, NULL, NULL, NULL, 12, "throughput" },
};

const struct xt_bench xt_bench_sched_metric = {
	.name = "sched_metric", .role = "measurer", .keys = keys, .setup = setup,
	.cases = cases, .ncases = sizeof(cases) / sizeof(cases[0]), .run = run,
	.report = report,
	.kpi = "kernel",
};
