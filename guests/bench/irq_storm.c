/* irq_storm.c - stressor: an interrupt storm from the platform timer.
 *
 * The one-shot timer is re-armed for period_us= (default 10, fractional allowed, 0 =
 * at once) after each handler entry, continuously, so the vCPU takes interrupts as
 * fast as the timer, the interrupt controller emulation and the hypervisor allow (a
 * storm of timer exits and injections on KVM/Xen; signals on native). The handler only
 * stores its entry counter; the loop spins, sees it and arms the next deadline (never
 * from inside the handler, so interrupts cannot nest). One iteration = batch=
 * (default 1000) interrupts; role=measurer records ticks per batch (rate =
 * batch x freq_hz / value). An interrupt that does not come within 10 periods +
 * timeout_ms= (default 1000) is counted lost and the timer re-armed; after a bounded run
 * META interrupts= lost=, and a measurer with losses ends status=fail. Pressure (XT META
 * work_per_pass, work_unit=interrupts): the interrupts one iteration takes, batch= (a lost
 * one is not counted: the iteration waits for batch= that came).
 * Caveats: the storm rate is bounded by the cost of arming (a trip through the
 * privileged gate: ring 0 / EL1, emulated on kvm-pvm) as much as by delivery; the timer
 * is the only interrupt source, so this loads one vCPU's interrupt path, not a device's.
 */
#include "xt.h"

static const struct xt_key keys[] = {
	{ "period_us", XT_DOUBLE, "[0,1e7]", "10" },
	{ "batch", XT_U64, "[1,1e9]", "1000" },
	{ "timeout_ms", XT_DOUBLE, "(0,1e6]", "1000" },
	XT_KEYS_END
};
static const struct xt_key tune[] = { { "period_us", XT_DOUBLE, "[0,100]", "10" }, XT_KEYS_END };
static uint64_t period, batch, timeout, deadline, interrupts, lost;
static volatile uint64_t fired_at;

static void on_timer(uint64_t now)
{
	fired_at = now;
}

static int setup(void)
{
	double p = xt_key_double("period_us"), tmo = xt_key_double("timeout_ms");

	batch = xt_key_u64("batch");
	if (!xt_cfg.freq_hz)
		xt_badparam("period_us", "counter frequency unknown: pass freq_hz");
	period = (uint64_t)(p * 1e-6 * (double)xt_cfg.freq_hz);
	timeout = (uint64_t)(tmo * 1e-3 * (double)xt_cfg.freq_hz);
	if (!xt_timer_oneshot(0, NULL)) {
		xt_set_reason("irq_storm: the platform has no timer interrupts");
		return XT_FAIL;
	}
	xt_meta("period_ticks=%lu batch=%lu", (unsigned long)period, (unsigned long)batch);
	xt_work(batch, "interrupts");
	return XT_PASS;
}

static void arm(uint64_t d)
{
	fired_at = 0;
	deadline = d;
	xt_timer_oneshot(d, on_timer);
}

static int prep(void)
{
	arm(xt_counter() + period);
	return XT_PASS;
}

static void exec(void)
{
	const uint64_t target = interrupts + batch;
	uint64_t f;

	while (interrupts < target) {
		if ((f = fired_at)) {
			interrupts++;
			arm(f + period);
		} else if (xt_counter() > deadline + 10 * period + timeout) {
			xt_timer_oneshot(0, NULL);
			if (!fired_at) {
				lost++;
				arm(xt_counter() + period);
			}
		}
	}
}

static int post(void)
{
	xt_timer_oneshot(0, NULL);
	if (lost && xt_cfg.measurer) {
		xt_set_reason("irq_storm: timer interrupts were lost");
		return XT_FAIL;
	}
	return XT_PASS;
}

static void report(void)
{
	xt_meta("interrupts=%lu lost=%lu", (unsigned long)interrupts, (unsigned long)lost);
}

static const struct xt_case cases[] = {
	{ "irq_storm", "cycles", prep, NULL, exec, post, 20, "duration" },
};

const struct xt_bench xt_bench_irq_storm = {
	.name = "irq_storm", .role = "stressor", .keys = keys, .setup = setup,
	.cases = cases, .ncases = sizeof(cases) / sizeof(cases[0]), .report = report,
	.kpi = "kernel",
	.channels = "irq", .tune = tune,
};
