/* vmexit_storm.c - stressor: a loop of operations that make the hypervisor work.
 *
 * One iteration = ops= (default 1000) operations of kind= through xt_trap (platform.h):
 * x86 guests `pio` (default: outb to port 0x80 via the ring-0 gate), `mmio` (ring-3
 * read of unassigned guest-physical memory), `cpuid`, `gate` (the ring-0 round trip
 * alone); arm64 guests `hvc` (default: PSCI_VERSION via the PSCI conduit), `mmio`
 * (GICD_TYPER read), `gate`; native `syscall` (getppid, the hosted analogue). Each
 * operation is one VM exit where the hardware traps it (see the platform's trap.c). As
 * a stressor it keeps the hypervisor's exit path, and QEMU's for userspace exits, busy
 * for the other guests; role=measurer records ticks per iteration, so the cost of one
 * exit is value / ops (minus the `gate` baseline where the operation needs the gate).
 * Pressure (XT META work_per_pass, work_unit=exits): the operations of one iteration,
 * ops=, each counted as one exit (natively one syscall, the hosted analogue).
 * Caveats: which kinds exit depends on the hypervisor (kvm-pvm runs ring-3 CPUID
 * natively and emulates all of ring 0); an unknown or unusable kind is a bad parameter.
 */
#include "xt.h"

static const struct xt_key keys[] = {
	{ "kind", XT_TEXT, NULL, NULL },        /* the platform's (xt_trap_kinds); default: its first */
	{ "ops", XT_U64, "[1,1e9]", "1000" },
	XT_KEYS_END
};
static int kind;
static uint64_t ops;

static int setup(void)
{
	static char dflt[32], msg[160];
	const char *kinds = xt_trap_kinds(), *name;
	size_t i = 0;

	while (kinds[i] && kinds[i] != ',' && i + 1 < sizeof(dflt)) {
		dflt[i] = kinds[i];
		i++;
	}
	dflt[i] = '\0';
	name = xt_param_str("kind", dflt);
	kind = xt_trap_kind(name);
	if (kind < 0) {
		xt_snprintf(msg, sizeof(msg), "unknown or unusable here; this platform offers %s",
			    kinds);
		xt_badparam("kind", msg);
	}
	ops = xt_key_u64("ops");
	xt_meta("kind=%s ops_per_sample=%lu kinds=%s", name, (unsigned long)ops, kinds);
	xt_work(ops, "exits");
	return XT_PASS;
}

static void exec(void)
{
	for (uint64_t i = ops; i; i--)
		xt_trap(kind);
}

static const struct xt_case cases[] = {
	{ "vmexit_storm", "cycles", NULL, NULL, exec, NULL, 100, "duration" },
};

const struct xt_bench xt_bench_vmexit_storm = {
	.name = "vmexit_storm", .role = "stressor", .keys = keys, .setup = setup,
	.cases = cases, .ncases = sizeof(cases) / sizeof(cases[0]),
	.kpi = "kernel",
	.channels = "hv",
};
