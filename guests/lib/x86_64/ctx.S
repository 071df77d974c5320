/* ctx.S - xt_ctx_init / xt_ctx_switch (platform.h) for x86-64, System V ABI.
 * A context is its stack pointer; the callee-saved registers rbx, rbp, r12-r15 and the
 * return address live on its stack. Runs in any ring (sched_metric uses it in ring 3);
 * also assembled into the native program (native/ctx.S). No FP state is switched: the
 * ABI has no callee-saved vector registers (MXCSR/x87 control words are not changed by
 * the benches). */
	.text

/* void xt_ctx_switch(struct xt_ctx *from %rdi, struct xt_ctx *to %rsi) */
	.globl xt_ctx_switch
	.type xt_ctx_switch, @function
xt_ctx_switch:
	push %rbp
	push %rbx
	push %r12
	push %r13
	push %r14
	push %r15
	mov %rsp, (%rdi)
	mov (%rsi), %rsp
	pop %r15
	pop %r14
	pop %r13
	pop %r12
	pop %rbx
	pop %rbp
	ret
	.size xt_ctx_switch, . - xt_ctx_switch

/* void xt_ctx_init(struct xt_ctx *c %rdi, void *stack %rsi, size_t bytes %rdx,
 *                  void (*entry)(void *) %rcx, void *arg %r8)
 * Frame at sp = top - 72: r15 r14 r13=arg r12=entry rbx rbp ret=xt_ctx_start, so that
 * xt_ctx_start runs with %rsp = top - 16 (16-byte aligned before its call). */
	.globl xt_ctx_init
	.type xt_ctx_init, @function
xt_ctx_init:
	lea (%rsi,%rdx), %rax
	and $-16, %rax
	sub $72, %rax
	movq $0, 0(%rax)
	movq $0, 8(%rax)
	mov %r8, 16(%rax)
	mov %rcx, 24(%rax)
	movq $0, 32(%rax)
	movq $0, 40(%rax)
	lea xt_ctx_start(%rip), %rdx
	mov %rdx, 48(%rax)
	movq $0, 56(%rax)
	movq $0, 64(%rax)
	mov %rax, (%rdi)
	ret
	.size xt_ctx_init, . - xt_ctx_init

xt_ctx_start:
	mov %r13, %rdi
	call *%r12
	ud2                             /* entry returned: trap (reported as a fault) */

	.section .note.GNU-stack, "", @progbits
