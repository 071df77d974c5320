/* smp_entry.S - where secondary vCPUs start (PSCI CPU_ON's entry point), and their
 * stacks.
 *
 * Entered at its physical address (= link address: the map is the identity) with the
 * MMU and caches off, x0 = the context id = the vCPU's start block (smp.c; cleaned to
 * the point of coherency, so it reads right with the caches off), at EL1 or at EL2
 * (QEMU with virtualization=on starts it at the highest EL, as PSCI says). Nothing is
 * stored before the MMU is on (with it off, stores would go round the caches the boot
 * vCPU sees memory through). Then: EL2 -> EL1 (head.S), the boot vCPU's MAIR, TCR,
 * TTBR0 (the same tables) and SCTLR (MMU and caches on), its CPACR (FP/SIMD on) and
 * VBAR; the vCPU index in TPIDRRO_EL0, its exception stack in TPIDR_EL1 (vectors.S),
 * its EL1 stack; arm64_secondary_main(block), which never returns.
 * Caveat: the secondaries' stacks are static, ARM64_MAX_CPUS - 1 sets (about 340 KiB
 * each, arm64.h), whatever the number of vCPUs.
 */
#include "arm64.h"

	.text
	.balign 8
	.globl arm64_secondary_entry
arm64_secondary_entry:
	msr daifset, #0xf
	mov x19, x0                     /* the start block */
	mrs x1, CurrentEL
	lsr x1, x1, #2
	cmp x1, #2
	b.ne 1f
	bl arm64_el2_to_el1
1:	ldp x1, x2, [x19, #ARM64_SB_MAIR]       /* MAIR, TCR */
	msr mair_el1, x1
	msr tcr_el1, x2
	ldp x1, x2, [x19, #ARM64_SB_TTBR0]      /* TTBR0, SCTLR */
	msr ttbr0_el1, x1
	ldp x3, x4, [x19, #ARM64_SB_CPACR]      /* CPACR, VBAR */
	msr cpacr_el1, x3
	msr vbar_el1, x4
	ldp x3, x4, [x19, #ARM64_SB_XSTACK]     /* exception stack top, EL1 stack top */
	msr tpidr_el1, x3
	ldr x5, [x19, #ARM64_SB_INDEX]
	msr tpidrro_el0, x5
	isb
	tlbi vmalle1
	dsb nsh
	isb
	msr sctlr_el1, x2
	isb
	ic iallu
	dsb nsh
	isb
	mov sp, x4
	mov x29, xzr
	mov x30, xzr
	mov x0, x19
	bl arm64_secondary_main
2:	msr daifset, #0xf
	wfi
	b 2b

	/* Per secondary (vCPU 1 .. ARM64_MAX_CPUS-1), from low to high: guard page, EL0
	 * stack, guard page, EL1 stack (in .bss: EL0 may be handed pointers to EL1 locals,
	 * as on the boot vCPU); and, EL1 only, guard page, exception stack. mmu.c unmaps
	 * the guards. */
	.section .bss.arm64_smp, "aw", %nobits
	.balign 4096
	.globl arm64_cpu_stacks
arm64_cpu_stacks:
	.skip (ARM64_MAX_CPUS - 1) * ARM64_CPU_STACKS

	.section .excstacks, "aw", %nobits
	.balign 4096
	.globl arm64_cpu_xstacks
arm64_cpu_xstacks:
	.skip (ARM64_MAX_CPUS - 1) * ARM64_CPU_XSTACKS
