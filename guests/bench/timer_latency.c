/* timer_latency.c - measurer: timer interrupt latency (seeds 002, 004) and the
 * sustained interrupt rate (seed 001, "maximum sustained interrupt frequency").
 *
 * Case 0 `timer_latency` (cycles): periodic one-shot timer interrupts at absolute
 * deadlines d_k = start + k x period_us (no drift). The handler only stores the counter
 * it read at entry; the loop (which spins between interrupts) records the sample
 * {t = handler entry, value = entry - d_k} and arms d_{k+1}. A deadline that has
 * already passed when the loop comes to arm it is skipped and counted (`overruns`, as
 * cyclictest does). iterations= interrupts (default 1000) or duration_s=.
 * Case 1 `timer_missed` (count): the sustained-rate search. Steps of sustain_count=
 * (default 10000) interrupts at period P, starting at sustain_start_us= (default 100)
 * and multiplied by sustain_factor= (default 0.8) after every step without a loss,
 * down to sustain_min_us= (default 1); if the first step already loses, P is divided
 * by the factor instead until a step does not, up to sustain_max_us= (default 10000).
 * The model is a periodic interrupt source with one pending bit (the seed's PCI
 * timer): interrupts falling due while an earlier one has not been taken yet are lost,
 * i.e. when the handler for d runs L ticks late, floor(L / P) interrupts were lost and
 * the next one armed is the first still ahead. One sample per step (value = interrupts
 * lost in it) and after the window one META line per step plus `sustained_period_ns` /
 * `sustained_hz` (the shortest period with no loss; 0 if none up to sustain_max_us) and
 * `lossy_period_ns` (the longest period that lost; 0 if the search reached its floor
 * without loss). The search runs only with sustain=1 (default 0: it runs after the
 * measured window, past duration_s, for minutes; without it metric 1 has no samples).
 * out_pin= (none|0..7, default none): the external stimulus mode where a board has no
 * GPIO loop. The handler of each measured deadline of case 0 (not warmup=, not the
 * search) toggles that GPIO output line first thing (xt_gpio_out / xt_gpio_flip: at
 * EL1 on arm64, before the bench's own handler returns), so an instrument watching
 * only that pin sees one edge per deadline on the grid start + k x period_us (a skipped
 * or missing deadline: a missing edge) and times each edge's lateness against it
 * ([instrument] period_ns, docs/instruments.md). No GPIO output on the platform
 * (x86_64, native, arm64 without a PL061) with out_pin given: status=fail.
 * A missing interrupt (none within 10 periods + timeout_ms=, default 1000) or one before
 * its deadline ends the run status=fail; no timer on the platform: status=fail.
 * Caveats: the loop spins between interrupts (no idle-state wake-up in the latency);
 * arming goes through the platform's privileged gate (ring 0 / EL1, emulated on
 * kvm-pvm), which is part of the per-interrupt cost the sustained rate measures; the
 * value includes the interrupt entry path up to the handler's first counter read.
 */
#include "xt.h"

static const struct xt_key keys[] = {
	{ "period_us", XT_DOUBLE, "(0,1e7]", "1000" },
	{ "timeout_ms", XT_DOUBLE, "(0,1e6]", "1000" },
	{ "sustain", XT_BOOL, NULL, "0" },  /* the search runs past duration_s: minutes */
	{ "sustain_start_us", XT_DOUBLE, "(0,1e6]", "100" },
	{ "sustain_min_us", XT_DOUBLE, "(0,1e6]", "1" },     /* at most sustain_start_us */
	{ "sustain_max_us", XT_DOUBLE, "(0,1e6]", "10000" }, /* at least sustain_start_us */
	{ "sustain_factor", XT_DOUBLE, "(0.05,1)", "0.8" },
	{ "sustain_count", XT_U64, "[1,1e9]", "10000" },
	{ "out_pin", XT_WORD, "none|0|1|2|3|4|5|6|7", "none" },
	XT_KEYS_END
};

#define MAX_STEPS 64
struct step { uint64_t period, generated, missed, max_lat; };

static uint64_t period, timeout, sustain_count;
static double sustain_start, sustain_min, sustain_max, sustain_factor;
static bool sustain, pin;        /* pin: out_pin names a line */
static volatile uint64_t fired_at;
/* results (reported after the window) */
static uint64_t lat_n, lat_min = UINT64_MAX, lat_max, lat_sum, overruns, missing, early;
static struct step steps[MAX_STEPS];
static unsigned nsteps;
static uint64_t best_period, lossy_period;

static uint64_t us_to_ticks(double us)
{
	uint64_t t = (uint64_t)(us * 1e-6 * (double)xt_cfg.freq_hz);
	return t ? t : 1;
}

static uint64_t ticks_to_ns(uint64_t t)
{
	return (uint64_t)((double)t * 1e9 / (double)xt_cfg.freq_hz);
}

static int setup(void)
{
	double p = xt_key_double("period_us"), tmo = xt_key_double("timeout_ms");
	const char *out_pin = xt_key_str("out_pin");

	sustain = xt_key_bool("sustain");
	sustain_start = xt_key_double("sustain_start_us");
	sustain_min = xt_key_double("sustain_min_us");
	sustain_max = xt_key_double("sustain_max_us");
	sustain_factor = xt_key_double("sustain_factor");
	sustain_count = xt_key_u64("sustain_count");
	if (sustain_min > sustain_start)
		xt_badparam("sustain_min_us", "expected microseconds in (0, sustain_start_us]");
	if (sustain_max < sustain_start)
		xt_badparam("sustain_max_us", "expected microseconds in [sustain_start_us, 1e6]");
	if (!xt_cfg.freq_hz)
		xt_badparam("period_us", "counter frequency unknown: pass freq_hz");
	period = us_to_ticks(p);
	timeout = (uint64_t)(tmo * 1e-3 * (double)xt_cfg.freq_hz);
	if (!xt_timer_oneshot(0, NULL)) {
		xt_set_reason("timer_latency: the platform has no timer interrupts");
		return XT_FAIL;
	}
	pin = xt_strcmp(out_pin, "none") != 0;
	if (pin && !xt_gpio_out((unsigned)(out_pin[0] - '0'))) {
		xt_set_reason("timer_latency: out_pin: the platform has no GPIO output (arm64 with a PL061 has)");
		return XT_FAIL;
	}
	xt_meta("period_ticks=%lu period_ns=%lu timeout_ticks=%lu sustain=%d "
		"sustain_count=%lu out_pin=%s", (unsigned long)period,
		(unsigned long)ticks_to_ns(period), (unsigned long)timeout, sustain,
		(unsigned long)sustain_count, out_pin);
	return XT_PASS;
}

static void on_timer(uint64_t now)
{
	fired_at = now;
}

/* A measured deadline's handler with out_pin: the edge first. */
static void on_deadline(uint64_t now)
{
	xt_gpio_flip();
	fired_at = now;
}

/* Arms deadline d with handler h and spins until it ran: its entry counter, or 0 if
 * the interrupt did not come (missing) or came before d (early). */
static uint64_t wait_one(uint64_t d, uint64_t p, void (*h)(uint64_t now))
{
	uint64_t now = xt_counter(), limit, f;

	fired_at = 0;
	xt_timer_oneshot(d, h);
	limit = (d > now ? d : now) + 10 * p + timeout;
	while (!(f = fired_at)) {
		if (xt_counter() > limit) {
			xt_timer_oneshot(0, NULL);
			if ((f = fired_at))      /* came in just now */
				break;
			missing++;
			xt_set_reason("timer_latency: a timer interrupt did not arrive");
			return 0;
		}
	}
	if (f < d) {
		early++;
		xt_set_reason("timer_latency: a timer interrupt came before its deadline");
		return 0;
	}
	return f;
}

static long run_latency(void)
{
	const uint64_t iters = xt_cfg.iterations, metric = xt_cfg.metric;
	uint64_t n = 0, end = UINT64_MAX, next, now, f, lat;
	void (*h)(uint64_t now) = pin ? on_deadline : on_timer;

	for (uint64_t i = 0; i < xt_cfg.warmup; i++)
		if (!wait_one(xt_counter() + period, period, on_timer))
			return XT_FAIL;
	next = xt_counter() + period;
	if (xt_cfg.duration_ticks)
		end = next - period + xt_cfg.duration_ticks;
	for (;;) {
		if (!(f = wait_one(next, period, h)))
			return XT_FAIL;
		lat = f - next;
		n++;
		lat_sum += lat;
		lat_min = lat < lat_min ? lat : lat_min;
		lat_max = lat > lat_max ? lat : lat_max;
		if (xt_cfg.measurer)
			xt_sample((uint32_t)metric, f, lat, 0);
		xt_cfg.done = n;
		if ((iters && n >= iters) || f >= end)
			break;
		next += period;
		now = xt_counter();
		while (next <= now) {            /* handled too late to arm it: skip */
			next += period;
			overruns++;
		}
	}
	lat_n = n;
	return XT_PASS;
}

/* One step of sustain_count interrupts at period p; its index, or -1 on failure. */
static int sustain_step(uint64_t p)
{
	struct step *s = &steps[nsteps];
	uint64_t d, f, lat, lost;

	s->period = p;
	d = xt_counter() + p;
	while (s->generated < sustain_count) {
		if (!(f = wait_one(d, p, on_timer)))
			return -1;
		lat = f - d;
		lost = lat / p;
		s->generated += 1 + lost;
		s->missed += lost;
		s->max_lat = lat > s->max_lat ? lat : s->max_lat;
		d += (lost + 1) * p;
	}
	if (xt_cfg.measurer)
		xt_sample(xt_cfg.metric, xt_counter(), s->missed, 0);
	xt_cfg.done = ++nsteps;
	return (int)nsteps - 1;
}

/* From sustain_start_us: shrink the period by sustain_factor while no interrupt is
 * lost (down to sustain_min_us), or, if the first step already loses, grow it by
 * 1/sustain_factor until one does not (up to sustain_max_us). */
static long run_sustain(void)
{
	double p_us = sustain_start;
	int i;

	if (!sustain)
		return XT_PASS;
	if ((i = sustain_step(us_to_ticks(p_us))) < 0)
		return XT_FAIL;
	if (steps[i].missed) {
		lossy_period = steps[i].period;
		while (nsteps < MAX_STEPS && (p_us /= sustain_factor) <= sustain_max * (1 + 1e-9)) {
			if ((i = sustain_step(us_to_ticks(p_us))) < 0)
				return XT_FAIL;
			if (!steps[i].missed) {
				best_period = steps[i].period;
				break;
			}
			lossy_period = steps[i].period;
		}
		return XT_PASS;
	}
	best_period = steps[i].period;
	while (nsteps < MAX_STEPS && best_period > 1 &&
	       (p_us *= sustain_factor) >= sustain_min * (1 - 1e-9)) {
		if ((i = sustain_step(us_to_ticks(p_us))) < 0)
			return XT_FAIL;
		if (steps[i].missed) {
			lossy_period = steps[i].period;
			break;
		}
		best_period = steps[i].period;
	}
	return XT_PASS;
}

static long run(void *c);

static const struct xt_case cases[] = {
	{ "timer_latency", "cycles", NULL, NULL, NULL, NULL, 1000, "latency" },
	{ "timer_missed", "count", NULL, NULL, NULL, NULL, 0, "loss" },
};

static long run(void *c)
{
	return c == &cases[0] ? run_latency() : run_sustain();
}

static void report(void)
{
	xt_meta("lat_n=%lu lat_min=%lu lat_max=%lu lat_mean=%lu overruns=%lu missing=%lu "
		"early=%lu", (unsigned long)lat_n, (unsigned long)(lat_n ? lat_min : 0),
		(unsigned long)lat_max, (unsigned long)(lat_n ? lat_sum / lat_n : 0),
		(unsigned long)overruns, (unsigned long)missing, (unsigned long)early);
	for (unsigned i = 0; i < nsteps; i++)
		xt_meta("sustain_step=%u period_ticks=%lu period_ns=%lu generated=%lu missed=%lu "
			"max_latency=%lu", i, (unsigned long)steps[i].period,
			(unsigned long)ticks_to_ns(steps[i].period),
			(unsigned long)steps[i].generated, (unsigned long)steps[i].missed,
			(unsigned long)steps[i].max_lat);
	if (sustain && nsteps)
		xt_meta("sustained_period_ns=%lu sustained_hz=%lu lossy_period_ns=%lu steps=%u",
			(unsigned long)(best_period ? ticks_to_ns(best_period) : 0),
			(unsigned long)(best_period ? xt_cfg.freq_hz / best_period : 0),
			(unsigned long)(lossy_period ? ticks_to_ns(lossy_period) : 0), nsteps);
}

const struct xt_bench xt_bench_timer_latency = {
	.name = "timer_latency", .role = "measurer", .keys = keys, .setup = setup,
	.cases = cases, .ncases = sizeof(cases) / sizeof(cases[0]), .run = run,
	.report = report,
	.kpi = "kernel",
};
