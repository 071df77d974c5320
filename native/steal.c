/* steal.c - xtalk-steal: a host stressor that steals a known amount of CPU time at known
 * times, so a measurer's view of stolen time can be checked against the truth.
 *
 *   xtalk-steal bench=steal run=R [role=stressor] [steal_us=1000] [period_us=10000]
 *               [prio=50] [duration_s=0]
 * Sets itself SCHED_FIFO at prio= (a refusal is an XT ERROR; it then runs SCHED_OTHER),
 * prints XT BEGIN and XT META sched= prio= start_ns=, then loops: sleep until the next absolute
 * deadline start + k x period_us (clock_nanosleep TIMER_ABSTIME, CLOCK_MONOTONIC), spin
 * for steal_us from the actual wake-up, and write `STEAL <start_ns> <end_ns>` (the spin's
 * first and last CLOCK_MONOTONIC reads) with one write() to stdout. steal_us=0 only wakes
 * up (a control). Deadlines that passed while it was stopped (SIGSTOP) or late are
 * skipped: a wake-up more than half a period after its deadline steals nothing, and the
 * next deadline is the first one still ahead, so steals never come back to back.
 * duration_s=S ends it after S seconds with XT META steals= skipped= and XT END pass;
 * 0 runs until killed. The protocol code is guests/lib's, on the POSIX suite's platform
 * (CLOCK_MONOTONIC in ns as the counter: BEGIN t0 is host CLOCK_MONOTONIC time).
 * `xtalk-steal catalogue` prints its catalogue entry (guests/lib/catalogue.c).
 * Caveat: a stop in the middle of a spin makes that line span the stop.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "rt.h"

static const struct xt_key keys[] = {
	{ "steal_us", XT_DOUBLE, "[0,)", "1000" },       /* below period_us */
	{ "period_us", XT_DOUBLE, "[1,1e9]", "10000" },
	{ "prio", XT_U64, "[1,99]", "50" },
	XT_KEYS_END
};
/* what xtalk search tunes: the stolen share is steal_us / period_us, at most 1/2 here */
static const struct xt_key tune[] = {
	{ "steal_us", XT_DOUBLE, "[100,2000]", "1000" },
	{ "period_us", XT_DOUBLE, "[4000,20000]", "10000" },
	XT_KEYS_END
};
/* Common keys that mean nothing to a program that records no samples. */
static const char *const unused[] = {
	"iterations", "warmup", "ring", "freq_hz", "l1_bytes", "l2_bytes", "l3_bytes",
	"llc_bytes", "buffer_slots", "ring_gpa", "ring_bytes", NULL
};

static void sleep_until(uint64_t t_ns)
{
	struct timespec ts = { .tv_sec = (time_t)(t_ns / RT_NS), .tv_nsec = (long)(t_ns % RT_NS) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

int main(int argc, char **argv)
{
	struct sched_param sp;
	double steal_us, period_us, dur;
	uint64_t prio, steal, period, start, next, stop, steals = 0, skipped = 0;
	char msg[120];

	if (argc == 2 && !strcmp(argv[1], "catalogue")) {
		xt_cat_suite("steal", "xtalk-steal", NULL, unused);
		xt_cat_bench("steal", "stressor", NULL, keys, "cpu", 1, tune, false);
		xt_cat_end();
		return 0;
	}
	rt_platform_init(argc, argv);
	xt_params_init(xt_cmdline());
	xt_params_check(keys);
	for (const char *const *k = unused; *k; k++)
		if (xt_param_has(*k))
			xt_badparam(*k, "not a parameter of steal");
	if (strcmp(xt_param_str("bench", "steal"), "steal"))
		xt_badparam("bench", "this program runs bench=steal only");
	if (strcmp(xt_param_str("role", "stressor"), "stressor"))
		xt_badparam("role", "steal is a stressor");
	steal_us = xt_key_double("steal_us");
	period_us = xt_key_double("period_us");
	prio = xt_key_u64("prio");
	dur = xt_key_double("duration_s");
	if (steal_us >= period_us)
		xt_badparam("steal_us", "expected 0 <= steal_us < period_us");
	steal = (uint64_t)(steal_us * 1e3);
	period = (uint64_t)(period_us * 1e3);

	xt_begin("steal", "stressor", RT_NS);
	sp.sched_priority = (int)prio;
	if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0) {
		snprintf(msg, sizeof(msg), "SCHED_FIFO priority %lu refused (%s): running SCHED_OTHER",
			 (unsigned long)prio, strerror(errno));
		xt_error(NULL, msg);
		prio = 0;
	}
	start = xt_counter();
	xt_meta("sched=%s prio=%lu steal_ns=%lu period_ns=%lu start_ns=%lu clock=CLOCK_MONOTONIC",
		prio ? "fifo" : "other", (unsigned long)prio, (unsigned long)steal,
		(unsigned long)period, (unsigned long)start);
	stop = dur > 0 ? start + (uint64_t)(dur * 1e9) : UINT64_MAX;
	for (next = start + period; next < stop;) {
		uint64_t wake, end;

		sleep_until(next);
		wake = end = xt_counter();
		if (wake - next < period / 2) {
			char line[64];
			int n;

			while (end - wake < steal)
				end = xt_counter();
			n = snprintf(line, sizeof(line), "STEAL %lu %lu\n", (unsigned long)wake,
				     (unsigned long)end);
			if (write(1, line, (size_t)n) != n)
				xt_exit(1);           /* nobody reads the console any more */
			steals++;
		} else {
			skipped++;
		}
		next = start + ((xt_counter() - start) / period + 1) * period;
	}
	if (stop != UINT64_MAX)
		sleep_until(stop);
	xt_meta("steals=%lu skipped=%lu", (unsigned long)steals, (unsigned long)skipped);
	xt_end(XT_PASS, false, NULL);
}
