/* gpio_irq.c - measurer: answers GPIO interrupts from outside (docs/instruments.md).
 *
 * Each rising edge on input line in_pin= (default 3: QEMU virt's power-button line,
 * raised by QMP system_powerdown with -machine virt,acpi=off) raises an interrupt whose
 * handler toggles output line out_pin= (default 0) at once: the response an instrument
 * (a logic analyser on both pins, xtalk's [instrument]) times against the stimulus,
 * which this guest's own clock cannot see. The guest records one sample per interrupt:
 * `gpio_irq_gap` (cycles), the counter ticks since the previous interrupt's entry
 * (the first: since the bench armed). The run lasts duration_s= (or iterations=
 * interrupts); a line without any edge for timeout_ms= (default 10000) ends it failed.
 * No GPIO on the platform (x86_64, native, an arm64 machine without a PL061): status=fail.
 * Caveats: the loop spins between interrupts; the toggle happens in the interrupt
 * handler at EL1 before the bench's handler, so the response does not include the
 * return to EL0. */
#include "xt.h"

static const struct xt_key keys[] = {
	{ "in_pin", XT_U64, "[0,7]", "3" },
	{ "out_pin", XT_U64, "[0,7]", "0" },
	{ "timeout_ms", XT_DOUBLE, "(0,1e7]", "10000" },
	XT_KEYS_END
};

static unsigned in_pin, out_pin;
static uint64_t timeout, answered;
static volatile uint64_t fired;

static void on_edge(uint64_t now)
{
	fired = now;
}

static int setup(void)
{
	in_pin = (unsigned)xt_key_u64("in_pin");
	out_pin = (unsigned)xt_key_u64("out_pin");
	if (in_pin == out_pin)
		xt_badparam("out_pin", "expected a line other than in_pin");
	timeout = (uint64_t)(xt_key_double("timeout_ms") * 1e-3 * (double)xt_cfg.freq_hz);
	if (!xt_gpio_irq(in_pin, out_pin, NULL)) {
		xt_set_reason("gpio_irq: the platform has no GPIO interrupt (arm64 with a PL061 has)");
		return XT_FAIL;
	}
	xt_meta("in_pin=%u out_pin=%u timeout_ticks=%lu", in_pin, out_pin, (unsigned long)timeout);
	return XT_PASS;
}

static long run(void *c)
{
	uint64_t last = xt_counter(), end = xt_cfg.duration_ticks ? last + xt_cfg.duration_ticks : UINT64_MAX, f;

	(void)c;
	fired = 0;
	xt_gpio_irq(in_pin, out_pin, on_edge);
	for (;;) {
		while (!(f = fired)) {
			uint64_t now = xt_counter();
			if (now >= end)
				goto done;
			if (now - last > timeout) {
				xt_gpio_irq(in_pin, out_pin, NULL);
				xt_set_reason("gpio_irq: no edge on the input line within timeout_ms");
				return XT_FAIL;
			}
		}
		fired = 0;
		if (xt_cfg.measurer)
			xt_sample((uint32_t)xt_cfg.metric, f, f - last, 0);
		last = f;
		xt_cfg.done = ++answered;
		if (xt_cfg.iterations && answered >= xt_cfg.iterations)
			break;
	}
done:
	xt_gpio_irq(in_pin, out_pin, NULL);
	return XT_PASS;
}

static void report(void)
{
	xt_meta("answered=%lu", (unsigned long)answered);
}

static const struct xt_case cases[] = {
	{ "gpio_irq_gap", "cycles", NULL, NULL, NULL, NULL, 0, NULL },
};

const struct xt_bench xt_bench_gpio_irq = {
	.name = "gpio_irq", .role = "measurer", .keys = keys, .setup = setup,
	.cases = cases, .ncases = 1, .run = run, .report = report,
	.kpi = "io",
};
