/* tm.c - the driver of the thread-metric throughput tests (struct rt_tm), after the
 * Thread-Metric suite the thesis (section 3.4.3) ran in Zephyr.
 *
 * The test's threads (all on cpus[0], SCHED_FIFO at priority + prio(i)) increment
 * tm_count[i]. The main thread is the reporter at priority + 25 (above them all): it
 * sleeps until the end of each interval (interval_s=, default 5), snapshots the
 * counters and writes, per interval, metric 0 = total count of the interval (the number
 * the thesis plotted) and metric 1+i = thread i's count (unit count).
 * Fairness check (tests with >= 2 threads): an interval FAILS when any thread's count is
 * below fair_pct% (default 90) of the mean count of that interval, or when nothing ran.
 * (Thread-Metric itself allows +-1 of the mean; 90 % tolerates the reporter reading
 * counters in the middle of a round and Linux's RT throttling.) The run goes on to the
 * end and reports XT END status=fail with the first failing interval as the reason.
 * starve=K runs thread K at priority + 0, below every other thread of the test, so a
 * test can see the fairness check fail. A test's check() adds integrity checks.
 * A one-thread test may give just op(), one operation: tm.c's thread then repeats it and
 * counts each in tm_count[0] (op_thread).
 * Intervals: duration_s / interval_s (at least 1), or iterations= intervals; every
 * metric's window (XT META window_ticks_<id>=, ns) is the first interval's start to the
 * last one's snapshot.
 * Caveat: without SCHED_FIFO (sched=other) priorities mean nothing: such a run fails.
 */
#include <stdio.h>
#include <string.h>
#include "rt.h"

volatile uint64_t tm_count[TM_MAX_THREADS];
volatile int tm_stop;
static void (*tm_op)(void);

/* The thread of a test that gives op() instead of thread(). */
static void *op_thread(void *arg)
{
	(void)arg;
	while (!tm_stop) {
		tm_op();
		tm_count[0]++;
	}
	return NULL;
}

/* Every parameter rt_tm_run reads; rt_tm_keys picks a test's. */
static const struct xt_key TM_KEYS[] = {
	{ "interval_s", XT_DOUBLE, "[0.01,3600]", "5" },
	{ "fair_pct", XT_DOUBLE, "[0,100]", "90" },
	{ "starve", XT_U64, "[0,15]", NULL },            /* default: none */
	{ "threads", XT_U64, "[1,16]", NULL },           /* 16: TM_MAX_THREADS; default: the test's */
};

const struct xt_key *rt_tm_keys(const struct rt_tm *t)
{
	static struct xt_key keys[5];
	unsigned n = 0;

	keys[n++] = TM_KEYS[0];
	if (t->nthreads >= 2) {
		keys[n++] = TM_KEYS[1];
		keys[n++] = TM_KEYS[2];
	}
	if (t->tunable)
		keys[n++] = TM_KEYS[3];
	keys[n] = (struct xt_key)XT_KEYS_END;
	return keys;
}

#define UNIT "count"
#define KIND "throughput"

void rt_tm_catalogue(const struct rt_tm *t)
{
	char name[48];

	xt_cat_bench(t->name, "measurer", "kernel", rt_tm_keys(t), NULL, 1, NULL, false);
	xt_cat_metric(t->name, UNIT, KIND);
	snprintf(name, sizeof(name), "%s_thread<N>", t->name);
	xt_cat_metric(name, UNIT, KIND);
}

int rt_tm_run(const struct rt_tm *t)
{
	unsigned n = t->tunable ? (unsigned)xt_param_u64("threads", t->nthreads) : t->nthreads;
	double interval_s = xt_key_double("interval_s");
	bool fairness = t->nthreads >= 2;     /* fair_pct and starve are its parameters */
	double fair_pct = fairness ? xt_key_double("fair_pct") : 0;
	long starve = xt_param_has("starve") ? (long)xt_param_u64("starve", 0) : -1;
	uint64_t intervals, prev[TM_MAX_THREADS] = { 0 }, next, start, now = 0;
	static char reason[200];
	int status = XT_PASS;

	if (starve >= (long)n || (starve >= 0 && n < 2))
		xt_badparam("starve", "expected a thread index of a test with >= 2 threads");
	intervals = rt.iterations ? rt.iterations
		: rt.duration_s > 0 ? (uint64_t)(rt.duration_s / interval_s) : 1;
	if (intervals == 0)
		intervals = 1;
	if (!rt.fifo)
		rt_fail("thread-metric needs SCHED_FIFO priorities (refused: see sched_refused)");

	snprintf(reason, sizeof(reason), " fair_pct=%g", fair_pct);
	xt_meta("method=\"%s\" threads=%u interval_s=%g%s intervals=%lu starve=%ld", t->method,
		n, interval_s, fairness ? reason : "", (unsigned long)intervals, starve);
	reason[0] = '\0';
	xt_metric(0, t->name, UNIT, KIND, "kernel");
	for (unsigned i = 0; i < n; i++) {
		char name[48];
		snprintf(name, sizeof(name), "%s_thread%u", t->name, i);
		xt_metric(1 + i, name, UNIT, KIND, "kernel");
	}
	if (t->setup)
		t->setup(n);
	rt_console_flush();
	tm_op = t->op;
	for (unsigned i = 0; i < n; i++)
		rt_thread(t->thread ? t->thread : op_thread, (void *)(uintptr_t)i,
			  (long)i == starve ? 0 : t->prio ? t->prio(i, n) : 1, -1);

	start = next = rt_now();
	for (uint64_t k = 0; k < intervals; k++) {
		uint64_t cur[TM_MAX_THREADS], total = 0;
		const char *bad = NULL;
		char msg[160];

		next += (uint64_t)(interval_s * 1e9);
		rt_sleep_until(next);
		now = rt_now();
		for (unsigned i = 0; i < n; i++) {
			cur[i] = tm_count[i] - prev[i];
			prev[i] += cur[i];
			total += cur[i];
		}
		if (rt.measurer) {
			xt_sample(0, now, total, 0);
			for (unsigned i = 0; i < n; i++)
				xt_sample(1 + i, now, cur[i], 0);
		}
		if (t->check)
			bad = t->check();
		if (!bad && n >= 2 && total == 0)
			bad = "no thread ran in the interval";
		for (unsigned i = 0; i < n && !bad && n >= 2; i++)
			if ((double)cur[i] * n * 100.0 < fair_pct * (double)total) {
				snprintf(msg, sizeof(msg), "fairness: thread %u count %lu < %g%% of mean %lu",
					 i, (unsigned long)cur[i], fair_pct, (unsigned long)(total / n));
				bad = msg;
			}
		if (bad && status == XT_PASS) {
			snprintf(reason, sizeof(reason), "interval %lu: %s", (unsigned long)k, bad);
			status = XT_FAIL;
			xt_set_reason(reason);
		}
	}
	tm_stop = 1;
	for (unsigned i = 0; i <= n; i++)
		xt_window(i, now - start);
	xt_ring_drain();
	return status;
}
