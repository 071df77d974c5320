/* ctx.S - xt_ctx_init / xt_ctx_switch (platform.h) for AArch64, AAPCS64.
 * A context is its stack pointer; the callee-saved x19-x28, the frame pointer x29, the
 * link register x30 and the low halves of v8-v15 (d8-d15) live on its stack. Runs at
 * EL0 or EL1 (sched_metric uses it at EL0); also assembled into the native program
 * (native/ctx.S). */
	.text

/* void xt_ctx_switch(struct xt_ctx *from x0, struct xt_ctx *to x1) */
	.globl xt_ctx_switch
	.type xt_ctx_switch, %function
xt_ctx_switch:
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
	mov x2, sp
	str x2, [x0]
	ldr x2, [x1]
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
	.size xt_ctx_switch, . - xt_ctx_switch

/* void xt_ctx_init(struct xt_ctx *c x0, void *stack x1, size_t bytes x2,
 *                  void (*entry)(void *) x3, void *arg x4)
 * Frame at sp = top - 160, all zero but x19 = entry, x20 = arg, x30 = xt_ctx_start;
 * the switch leaves sp = top (16-byte aligned). */
	.globl xt_ctx_init
	.type xt_ctx_init, %function
xt_ctx_init:
	add x5, x1, x2
	and x5, x5, #~15
	sub x5, x5, #160
	mov x6, x5
	add x7, x5, #160
1:	stp xzr, xzr, [x6], #16
	cmp x6, x7
	b.lo 1b
	stp x3, x4, [x5, #0]
	adr x6, xt_ctx_start
	str x6, [x5, #88]
	str x5, [x0]
	ret
	.size xt_ctx_init, . - xt_ctx_init

xt_ctx_start:
	mov x0, x20
	blr x19
	brk #0                          /* entry returned: trap (reported as a fault) */

	.section .note.GNU-stack, "", %progbits
