/* cpu_spin.c - stressor: a tight ALU loop with no memory traffic.
 *
 * The thesis's Listing 3.1 (an endless empty loop): one iteration = spin= (default
 * 1<<20) steps of a dependent multiply-add chain kept in a register, so the core is
 * busy but caches and memory bus are left alone. Runs until killed or duration_s=;
 * role=measurer records ticks per iteration. Pressure (XT META work_per_pass,
 * work_unit=ops): the multiply-add steps of one iteration, spin=. Caveat: loads the core's ALUs (an SMT
 * sibling would feel it); it is not a power virus.
 */
#include "xt.h"

static const struct xt_key keys[] = { { "spin", XT_U64, "[1,)", "1048576" }, XT_KEYS_END };
static uint64_t spin;

static int setup(void)
{
	spin = xt_key_u64("spin");
	xt_work(spin, "ops");
	return XT_PASS;
}

static void exec(void)
{
	uint64_t x = spin;

	for (uint64_t i = spin; i; i--) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		__asm__ __volatile__("" : "+r"(x));
	}
	xt_keep(x);
}

static const struct xt_case cases[] = {
	{ "cpu_spin", "cycles", NULL, NULL, exec, NULL, 10, "duration" },
};

const struct xt_bench xt_bench_cpu_spin = {
	.name = "cpu_spin", .role = "stressor", .keys = keys, .setup = setup,
	.cases = cases, .ncases = sizeof(cases) / sizeof(cases[0]),
	.kpi = "application",
	.channels = "cpu lock", .smp = true,   /* spin is read-only once set up */
};
