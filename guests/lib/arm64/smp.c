/* smp.c - several vCPUs: xt_ncpus(), xt_cpu_index(), xt_cpu_start() (platform.h).
 *
 * The vCPUs are the DTB's /cpus/cpu@N nodes with device_type "cpu" (board.c), the first
 * ARM64_MAX_CPUS of them. Index 0 is the boot vCPU (the node whose reg is its MPIDR),
 * 1.. the others in DTB order. Each vCPU holds its index in TPIDRRO_EL0, read-only at
 * EL0 and readable there with one mrs (no trap under KVM or Xen), so xt_cpu_index()
 * is cheap at EL0 inside measured loops; head.S sets it to 0 on the boot vCPU. (TPIDR_EL1
 * is not free: vectors.S keeps each vCPU's exception stack top in it.)
 *
 * xt_cpu_start(cpu, fn, arg): PSCI CPU_ON (SMC64 id, PSCI 0.2 or later: QEMU virt and
 * Xen have it) of the node's MPIDR at arm64_secondary_entry (smp_entry.S), with the
 * physical address of the vCPU's start block as context id. The block carries the boot
 * vCPU's MMU, FP and vector registers, the vCPU's stacks and index, fn and arg; it is
 * cleaned to the point of coherency because the secondary reads it with its MMU off.
 * The secondary then (arm64_secondary_main) masks its virtual timer, opens the counter
 * to EL0 as timer.c does for the boot vCPU, and claims the start (STARTING -> RUNNING);
 * xt_cpu_start() waits up to 1 s of the counter for that. A vCPU that comes up later
 * finds the start abandoned and parks without running fn. After fn returns, the vCPU
 * parks for good: wfi with DAIF masked.
 *
 * Secondaries run with IRQs masked at EL1 and, through xt_run_unprivileged (vectors.S:
 * its per-vCPU state in arm64_percpu), at EL0 too: the timer, the GIC and the GPIO
 * interrupt serve the boot vCPU only (xt_timer_oneshot/xt_gpio_irq return false on the
 * others). The console takes a lock from the first start on (console.c).
 * Caveats: xt_cpu_start() is called at EL1 (false at EL0); each vCPU starts at most once
 * per run (CPU_ON again would answer ALREADY_ON); xt_alloc and the sample ring are not
 * made safe for several vCPUs here; PSCI 0.1-only firmware (its own CPU_ON id) is not
 * handled.
 */
#include <stddef.h>
#include "platform.h"
#include "arm64.h"

#define PSCI_CPU_ON_64 0xc4000003ull

enum { IDLE, STARTING, RUNNING, ABANDONED };

struct start_block {                    /* smp_entry.S reads the first fields: ARM64_SB_* */
	uint64_t mair, tcr, ttbr0, sctlr, cpacr, vbar, xstack, kstack, index;
	void (*fn)(void *);
	void *arg;
	uint32_t state;
} __attribute__((aligned(64)));
_Static_assert(offsetof(struct start_block, mair) == ARM64_SB_MAIR, "start block");
_Static_assert(offsetof(struct start_block, tcr) == ARM64_SB_TCR, "start block");
_Static_assert(offsetof(struct start_block, ttbr0) == ARM64_SB_TTBR0, "start block");
_Static_assert(offsetof(struct start_block, sctlr) == ARM64_SB_SCTLR, "start block");
_Static_assert(offsetof(struct start_block, cpacr) == ARM64_SB_CPACR, "start block");
_Static_assert(offsetof(struct start_block, vbar) == ARM64_SB_VBAR, "start block");
_Static_assert(offsetof(struct start_block, xstack) == ARM64_SB_XSTACK, "start block");
_Static_assert(offsetof(struct start_block, kstack) == ARM64_SB_KSTACK, "start block");
_Static_assert(offsetof(struct start_block, index) == ARM64_SB_INDEX, "start block");

static struct start_block blocks[ARM64_MAX_CPUS];
volatile bool arm64_smp_on;

void arm64_secondary_main(struct start_block *b);

unsigned xt_ncpus(void)
{
	return arm64_board.ncpus ? arm64_board.ncpus : 1;
}

unsigned xt_cpu_index(void)
{
	return arm64_cpu();
}

/* The MPIDR of vCPU cpu (1 ..): the DTB's nodes in order, the boot vCPU's left out. */
static uint64_t target(unsigned cpu)
{
	const struct arm64_board *b = &arm64_board;
	uint64_t self = read_sysreg(mpidr_el1) & 0xff00ffffffull;
	unsigned boot = 0;

	for (unsigned i = 0; i < b->ncpus; i++)
		if (b->mpidr[i] == self) {
			boot = i;
			break;
		}
	return b->mpidr[cpu - 1 < boot ? cpu - 1 : cpu];
}

static void clean_to_poc(const void *p, size_t n)
{
	uint64_t line = 4ull << ((read_sysreg(ctr_el0) >> 16) & 15);
	for (uint64_t a = (uintptr_t)p & ~(line - 1); a < (uintptr_t)p + n; a += line)
		__asm__ volatile("dc cvac, %0" : : "r"(a) : "memory");
	dsb_sy();
}

bool xt_cpu_start(unsigned cpu, void (*fn)(void *), void *arg)
{
	struct start_block *b = &blocks[cpu < ARM64_MAX_CPUS ? cpu : 0];
	uint32_t want = IDLE;

	if (arm64_at_el0 || cpu == 0 || cpu >= xt_ncpus() || !fn ||
	    !__atomic_compare_exchange_n(&b->state, &want, STARTING, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return false;
	uint64_t st = (uintptr_t)arm64_cpu_stacks + (uint64_t)(cpu - 1) * ARM64_CPU_STACKS;
	struct arm64_percpu *pc = &arm64_percpu[cpu];
	pc->kernel_sp = 0;
	pc->at_el0 = 0;
	pc->user_top = st + 4096 + ARM64_USTACK_BYTES;
	b->mair = read_sysreg(mair_el1);
	b->tcr = read_sysreg(tcr_el1);
	b->ttbr0 = read_sysreg(ttbr0_el1);
	b->sctlr = read_sysreg(sctlr_el1);
	b->cpacr = read_sysreg(cpacr_el1);
	b->vbar = read_sysreg(vbar_el1);
	b->xstack = (uintptr_t)arm64_cpu_xstacks + (uint64_t)cpu * ARM64_CPU_XSTACKS;
	b->kstack = st + ARM64_CPU_STACKS;
	b->index = cpu;
	b->fn = fn;
	b->arg = arg;
	arm64_smp_on = true;                    /* console.c locks from now on */
	clean_to_poc(b, sizeof *b);
	long r = arm64_psci_call(PSCI_CPU_ON_64, target(cpu), (uintptr_t)arm64_secondary_entry, (uintptr_t)b);
	if (r != 0) {
		__atomic_store_n(&b->state, IDLE, __ATOMIC_RELEASE);
		return false;
	}
	uint64_t hz = read_sysreg(cntfrq_el0) & 0xffffffffu, limit = xt_counter() + (hz ? hz : 1000000000);
	while (__atomic_load_n(&b->state, __ATOMIC_ACQUIRE) == STARTING && xt_counter() < limit)
		__asm__ volatile("yield");
	want = STARTING;
	return !__atomic_compare_exchange_n(&b->state, &want, ABANDONED, false, __ATOMIC_ACQ_REL,
					    __ATOMIC_ACQUIRE);
}

void arm64_secondary_main(struct start_block *b)
{
	uint32_t want = STARTING;

	write_sysreg(cntv_ctl_el0, 0);          /* its virtual timer off (reset: UNKNOWN) */
	write_sysreg(cntkctl_el1, 1u << 1);     /* EL0VCTEN, as timer.c on the boot vCPU */
	isb();
	if (__atomic_compare_exchange_n(&b->state, &want, RUNNING, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		b->fn(b->arg);
	for (;;)
		__asm__ volatile("msr daifset, #0xf; wfi" : : : "memory");
}
