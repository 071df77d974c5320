/* vectors.S - exception vectors, the EL1 <-> EL0 transitions and the hypercall stubs.
 *
 * Per vCPU (several may run EL0 code at once): the state of xt_run_unprivileged is in
 * arm64_percpu[TPIDRRO_EL0] (the saved EL1 stack pointer, the EL0 stack, at_el0), the
 * exception stack's top in TPIDR_EL1 (arm64.h).
 * From EL0 (on SP_EL1, the stack of the EL1 code that called xt_run_unprivileged):
 *   sync   `svc #0` at arm64_user_ret (the EL0 trampoline's end) returns from
 *          xt_run_unprivileged with x0; anything else -> arm64_el0_exception(), which
 *          serves `svc #1` (arm64_svc) or reports a fault and exits.
 *   irq    the counter is read first (frame->now), then arm64_el0_exception().
 * Both save x0-x30, SP_EL0, ELR/SPSR/ESR/FAR and the whole FP/SIMD state (IRQ
 * handlers are arch-neutral C that may use SIMD).
 * At EL1 every exception is fatal: the entry switches to a separate exception stack
 * (so a kernel stack overflow into its guard page can still be reported) and calls
 * arm64_el1_exception(), which reports and exits. IRQs are masked at EL1.
 */
#include "arm64.h"

	.macro save_gprs_x2_x30         /* x0, x1 already stored */
	stp x2, x3, [sp, #16]
	stp x4, x5, [sp, #32]
	stp x6, x7, [sp, #48]
	stp x8, x9, [sp, #64]
	stp x10, x11, [sp, #80]
	stp x12, x13, [sp, #96]
	stp x14, x15, [sp, #112]
	stp x16, x17, [sp, #128]
	stp x18, x19, [sp, #144]
	stp x20, x21, [sp, #160]
	stp x22, x23, [sp, #176]
	stp x24, x25, [sp, #192]
	stp x26, x27, [sp, #208]
	stp x28, x29, [sp, #224]
	str x30, [sp, #240]
	mrs x2, elr_el1
	mrs x3, spsr_el1
	stp x2, x3, [sp, #ARM64_F_ELR]
	mrs x2, esr_el1
	mrs x3, far_el1
	stp x2, x3, [sp, #ARM64_F_ESR]
	.endm

	.macro fp_save
	stp q0, q1, [sp, #(ARM64_F_Q0 + 0)]
	stp q2, q3, [sp, #(ARM64_F_Q0 + 32)]
	stp q4, q5, [sp, #(ARM64_F_Q0 + 64)]
	stp q6, q7, [sp, #(ARM64_F_Q0 + 96)]
	stp q8, q9, [sp, #(ARM64_F_Q0 + 128)]
	stp q10, q11, [sp, #(ARM64_F_Q0 + 160)]
	stp q12, q13, [sp, #(ARM64_F_Q0 + 192)]
	stp q14, q15, [sp, #(ARM64_F_Q0 + 224)]
	stp q16, q17, [sp, #(ARM64_F_Q0 + 256)]
	stp q18, q19, [sp, #(ARM64_F_Q0 + 288)]
	stp q20, q21, [sp, #(ARM64_F_Q0 + 320)]
	stp q22, q23, [sp, #(ARM64_F_Q0 + 352)]
	stp q24, q25, [sp, #(ARM64_F_Q0 + 384)]
	stp q26, q27, [sp, #(ARM64_F_Q0 + 416)]
	stp q28, q29, [sp, #(ARM64_F_Q0 + 448)]
	stp q30, q31, [sp, #(ARM64_F_Q0 + 480)]
	mrs x2, fpsr
	mrs x3, fpcr
	str x2, [sp, #ARM64_F_FPSR]
	str x3, [sp, #ARM64_F_FPCR]
	.endm

	.macro fp_restore
	ldr x2, [sp, #ARM64_F_FPSR]
	ldr x3, [sp, #ARM64_F_FPCR]
	msr fpsr, x2
	msr fpcr, x3
	ldp q0, q1, [sp, #(ARM64_F_Q0 + 0)]
	ldp q2, q3, [sp, #(ARM64_F_Q0 + 32)]
	ldp q4, q5, [sp, #(ARM64_F_Q0 + 64)]
	ldp q6, q7, [sp, #(ARM64_F_Q0 + 96)]
	ldp q8, q9, [sp, #(ARM64_F_Q0 + 128)]
	ldp q10, q11, [sp, #(ARM64_F_Q0 + 160)]
	ldp q12, q13, [sp, #(ARM64_F_Q0 + 192)]
	ldp q14, q15, [sp, #(ARM64_F_Q0 + 224)]
	ldp q16, q17, [sp, #(ARM64_F_Q0 + 256)]
	ldp q18, q19, [sp, #(ARM64_F_Q0 + 288)]
	ldp q20, q21, [sp, #(ARM64_F_Q0 + 320)]
	ldp q22, q23, [sp, #(ARM64_F_Q0 + 352)]
	ldp q24, q25, [sp, #(ARM64_F_Q0 + 384)]
	ldp q26, q27, [sp, #(ARM64_F_Q0 + 416)]
	ldp q28, q29, [sp, #(ARM64_F_Q0 + 448)]
	ldp q30, q31, [sp, #(ARM64_F_Q0 + 480)]
	.endm

	/* An exception at EL1: fatal. Switch to this vCPU's exception stack (its top in
	 * TPIDR_EL1; swapping sp and x0 without another register, x0 parked in TPIDR_EL0,
	 * which no code here uses: the run ends anyway), build a frame, report. */
	.macro el1_entry kind
	.balign 128
	msr tpidr_el0, x0
	mrs x0, tpidr_el1
	add sp, sp, x0
	sub x0, sp, x0                  /* x0 = old sp */
	sub sp, sp, x0                  /* sp = exception stack top */
	sub sp, sp, #ARM64_FRAME
	str x0, [sp, #ARM64_F_SP]
	mrs x0, tpidr_el0
	stp x0, x1, [sp]
	mov x1, #\kind
	b el1_common
	.endm

	.macro el0_entry kind
	.balign 128
	sub sp, sp, #ARM64_FRAME
	stp x0, x1, [sp]
	.if \kind == ARM64_EXC_IRQ
	mrs x0, cntvct_el0              /* first thing: the interrupt's arrival time */
	str x0, [sp, #ARM64_F_NOW]
	.endif
	mov x1, #(\kind | ARM64_EXC_EL0)
	b el0_common
	.endm

	.text
	.balign 2048
	.globl arm64_vectors
arm64_vectors:
	el1_entry (ARM64_EXC_SYNC | ARM64_EXC_SP0)     /* current EL, SP_EL0 */
	el1_entry (ARM64_EXC_IRQ | ARM64_EXC_SP0)
	el1_entry (ARM64_EXC_FIQ | ARM64_EXC_SP0)
	el1_entry (ARM64_EXC_SERROR | ARM64_EXC_SP0)
	el1_entry ARM64_EXC_SYNC                       /* current EL, SP_EL1 */
	el1_entry ARM64_EXC_IRQ
	el1_entry ARM64_EXC_FIQ
	el1_entry ARM64_EXC_SERROR
	el0_entry ARM64_EXC_SYNC                       /* lower EL, AArch64 */
	el0_entry ARM64_EXC_IRQ
	el0_entry ARM64_EXC_FIQ
	el0_entry ARM64_EXC_SERROR
	el0_entry ARM64_EXC_SYNC                       /* lower EL, AArch32 (never) */
	el0_entry ARM64_EXC_IRQ
	el0_entry ARM64_EXC_FIQ
	el0_entry ARM64_EXC_SERROR

el1_common:
	save_gprs_x2_x30
	mov x0, sp
	bl arm64_el1_exception          /* does not return */
1:	wfi
	b 1b

el0_common:
	save_gprs_x2_x30
	mrs x2, tpidrro_el0             /* this vCPU's arm64_percpu entry */
	adrp x3, arm64_percpu
	add x3, x3, :lo12:arm64_percpu
	add x2, x3, x2, lsl #ARM64_PC_SHIFT
	str wzr, [x2, #ARM64_PC_AT_EL0]
	/* The return from xt_run_unprivileged: `svc #0` at arm64_user_ret. */
	cmp x1, #(ARM64_EXC_SYNC | ARM64_EXC_EL0)
	b.ne 1f
	ldr x2, [sp, #ARM64_F_ESR]
	mov x3, #0x56000000             /* EC = SVC64, IL, imm16 = 0 */
	cmp x2, x3
	b.ne 1f
	ldr x2, [sp, #ARM64_F_ELR]
	adr x3, arm64_user_ret
	add x3, x3, #4
	cmp x2, x3
	b.eq user_return
1:	mrs x2, sp_el0
	str x2, [sp, #ARM64_F_SP]
	fp_save
	mov x0, sp
	bl arm64_el0_exception
	/* back to EL0 */
	fp_restore
	ldp x2, x3, [sp, #ARM64_F_ELR]
	msr elr_el1, x2
	msr spsr_el1, x3
	ldr x2, [sp, #ARM64_F_SP]
	msr sp_el0, x2
	mrs x2, tpidrro_el0
	adrp x3, arm64_percpu
	add x3, x3, :lo12:arm64_percpu
	add x2, x3, x2, lsl #ARM64_PC_SHIFT
	mov w3, #1
	str w3, [x2, #ARM64_PC_AT_EL0]
	ldp x2, x3, [sp, #16]
	ldp x4, x5, [sp, #32]
	ldp x6, x7, [sp, #48]
	ldp x8, x9, [sp, #64]
	ldp x10, x11, [sp, #80]
	ldp x12, x13, [sp, #96]
	ldp x14, x15, [sp, #112]
	ldp x16, x17, [sp, #128]
	ldp x18, x19, [sp, #144]
	ldp x20, x21, [sp, #160]
	ldp x22, x23, [sp, #176]
	ldp x24, x25, [sp, #192]
	ldp x26, x27, [sp, #208]
	ldp x28, x29, [sp, #224]
	ldr x30, [sp, #240]
	ldp x0, x1, [sp]
	add sp, sp, #ARM64_FRAME
	eret

user_return:                        /* x0 of the frame = fn's result */
	ldr x0, [sp]
	mrs x1, tpidrro_el0
	adrp x3, arm64_percpu
	add x3, x3, :lo12:arm64_percpu
	add x1, x3, x1, lsl #ARM64_PC_SHIFT
	ldr x2, [x1, #ARM64_PC_KERNEL_SP]
	str xzr, [x1, #ARM64_PC_KERNEL_SP]
	mov sp, x2
	ldp x19, x20, [sp, #0]
	ldp x21, x22, [sp, #16]
	ldp x23, x24, [sp, #32]
	ldp x25, x26, [sp, #48]
	ldp x27, x28, [sp, #64]
	ldp x29, x30, [sp, #80]
	ldp d8, d9, [sp, #96]
	ldp d10, d11, [sp, #112]
	ldp d12, d13, [sp, #128]
	ldp d14, d15, [sp, #144]
	add sp, sp, #160
	ret

/* long xt_run_unprivileged(long (*fn)(void *), void *arg)
 * At EL1 with no EL0 call active: run fn(arg) at EL0 on the user stack with IRQs
 * unmasked, return its result. At EL0, or at EL1 inside an exception taken from an
 * EL0 call (an interrupt handler): a plain call. */
	.globl xt_run_unprivileged
xt_run_unprivileged:
	mrs x12, tpidrro_el0            /* x9 = this vCPU's arm64_percpu entry */
	adrp x9, arm64_percpu
	add x9, x9, :lo12:arm64_percpu
	add x9, x9, x12, lsl #ARM64_PC_SHIFT
	ldr w10, [x9, #ARM64_PC_AT_EL0]
	cbnz w10, 1f
	ldr x10, [x9, #ARM64_PC_KERNEL_SP]
	cbnz x10, 1f
	sub sp, sp, #160
	stp x19, x20, [sp, #0]
	stp x21, x22, [sp, #16]
	stp x23, x24, [sp, #32]
	stp x25, x26, [sp, #48]
	stp x27, x28, [sp, #64]
	stp x29, x30, [sp, #80]
	stp d8, d9, [sp, #96]
	stp d10, d11, [sp, #112]
	stp d12, d13, [sp, #128]
	stp d14, d15, [sp, #144]
	mov x10, sp
	str x10, [x9, #ARM64_PC_KERNEL_SP]
	ldr x10, [x9, #ARM64_PC_USER_TOP]
	msr sp_el0, x10
	ldr x10, =arm64_user_trampoline
	msr elr_el1, x10
	mov x10, #0x40                  /* EL0t; IRQ, SError, debug unmasked; FIQ masked */
	cbz x12, 2f
	mov x10, #0xc0                  /* secondary vCPUs: IRQ masked too (smp.c) */
2:	msr spsr_el1, x10
	mov w11, #1
	str w11, [x9, #ARM64_PC_AT_EL0]
	mov x9, x0
	mov x0, x1
	mov x29, xzr
	mov x30, xzr
	eret
1:	mov x9, x0
	mov x0, x1
	br x9

	/* EL0 (in .text: read-only and executable at both levels) */
arm64_user_trampoline:
	blr x9
	.globl arm64_user_ret
arm64_user_ret:
	svc #0
	b arm64_user_ret

/* long arm64_svc(long nr, long a, long b, long c): EL0 -> EL1 service call. */
	.globl arm64_svc
arm64_svc:
	svc #1
	ret

/* long arm64_xen_hypercall(long nr, long a0, long a1, long a2): Xen on arm64 takes the
 * hypercall number in x16 and the arguments in x0..x4 (`hvc #0xea1`). */
	.globl arm64_xen_hypercall
arm64_xen_hypercall:
	mov x16, x0
	mov x0, x1
	mov x1, x2
	mov x2, x3
	hvc #0xea1
	ret

	.ltorg

	/* struct arm64_percpu arm64_percpu[ARM64_MAX_CPUS] (arm64.h): vCPU 0's EL0 stack is
	 * link.ld's, the secondaries' are set by smp.c before they start. In .data: EL0 reads
	 * at_el0 (xt_console_write and the like pick `svc #1` or a call with it). */
	.data
	.balign (1 << ARM64_PC_SHIFT)
	.globl arm64_percpu
arm64_percpu:
	.quad 0, arm64_user_stack_top, 0, 0, 0, 0, 0, 0
	.skip (ARM64_MAX_CPUS - 1) << ARM64_PC_SHIFT
