/* entry.S - interrupt/exception stubs and the ring 0 <-> ring 3 transitions.
 *
 * Into ring 3: iretq with IOPL=0 and IF=1 (iretq with IOPL=3 and lretq both fail on
 * kvm-pvm). Back to ring 0: a `ud2` at a known address (int $0x80 from ring 3 gives #UD
 * on kvm-pvm); the #UD stub recognises two addresses:
 *   x86_user_return_ud2  end of xt_run_unprivileged(): resume the saved ring-0 context
 *                        with fn's return value in %rax;
 *   x86_syscall          a call into ring 0 (x86_syscall_dispatch) that returns to ring 3.
 * Every other exception goes to x86_exception() (idt.c), which reports and exits.
 */
#include "x86.h"

	.text
/* 32 exception stubs, X86_ISR_STUB_SIZE bytes apart; the stack then holds
 * vector, error code (0 if the CPU pushes none) and the CPU's interrupt frame. */
	.balign X86_ISR_STUB_SIZE
	.globl x86_isr_table
x86_isr_table:
	.set v, 0
	.rept 32
	.balign X86_ISR_STUB_SIZE
	.if v == 6
	jmp x86_isr_ud
	.else
	.if !(v == 8 || (v >= 10 && v <= 14) || v == 17 || v == 21 || v == 29 || v == 30)
	pushq $0
	.endif
	pushq $v
	jmp x86_isr_common
	.endif
	.set v, v + 1
	.endr

x86_isr_ud:
	testb $3, 8(%rsp)               /* from ring 3? */
	jz 1f
	cmpq $x86_user_return_ud2, (%rsp)
	je x86_user_return
	cmpq $x86_syscall, (%rsp)
	je x86_syscall_entry
1:	pushq $0
	pushq $6
	jmp x86_isr_common

x86_isr_common:
	push %rax
	push %rbx
	push %rcx
	push %rdx
	push %rsi
	push %rdi
	push %rbp
	push %r8
	push %r9
	push %r10
	push %r11
	push %r12
	push %r13
	push %r14
	push %r15
	mov %rsp, %rdi                  /* struct x86_frame * */
	and $-16, %rsp
	call x86_exception              /* does not return */
2:	cli
	hlt
	jmp 2b

/* LAPIC timer. Reads the counter first; x86_lapic_timer_irq (lapic.c) acknowledges
 * the interrupt and returns the handler to call, or NULL. The handler is arch-neutral
 * code compiled with SSE, which the kvm-pvm ring-0 emulator cannot run, so it is
 * delivered like a signal: the interrupted ring-3 context is pushed on the user stack
 * (below a 128-byte red zone) and iretq goes to x86_timer_upcall in ring 3, which
 * saves the rest (fxsave), calls handler(now) natively and returns to the interrupted
 * code without entering ring 0 again. Interrupts from ring 0 cannot happen (ring 0
 * runs with IF=0); if one does, the handler is called in place. */
	.globl x86_isr_timer
x86_isr_timer:
	push %rax
	push %rdx
	rdtsc
	shl $32, %rdx
	or %rdx, %rax                   /* now */
	push %rcx
	push %rsi
	push %rdi
	push %r8
	push %r9
	push %r10
	push %r11
	push %rbx
	/* rbx 0, r11 8, r10 16, r9 24, r8 32, rdi 40, rsi 48, rcx 56, rdx 64, rax 72,
	 * then the CPU frame: rip 80, cs 88, rflags 96, rsp 104, ss 112 */
	mov %rax, %rbx
	mov %rax, %rdi
	sub $8, %rsp
	call x86_lapic_timer_irq
	add $8, %rsp
	test %rax, %rax
	jz 9f
	testb $3, 88(%rsp)
	jnz 1f
	mov %rbx, %rdi                  /* from ring 0: call in place */
	sub $8, %rsp
	call *%rax
	add $8, %rsp
	jmp 9f
1:	mov 104(%rsp), %rcx             /* user rsp */
	sub $128, %rcx                  /* red zone */
	mov 80(%rsp), %rdx
	mov %rdx, -8(%rcx)              /* interrupted rip */
	lea -8(%rcx), %rdx
	mov %rdx, -16(%rcx)             /* for pop %rsp */
	mov 96(%rsp), %rdx
	mov %rdx, -24(%rcx)             /* rflags */
	mov 72(%rsp), %rdx
	mov %rdx, -32(%rcx)             /* rax */
	mov 64(%rsp), %rdx
	mov %rdx, -40(%rcx)             /* rdx */
	mov 56(%rsp), %rdx
	mov %rdx, -48(%rcx)             /* rcx */
	mov 40(%rsp), %rdx
	mov %rdx, -56(%rcx)             /* rdi */
	mov 48(%rsp), %rdx
	mov %rdx, -64(%rcx)             /* rsi */
	sub $64, %rcx
	mov %rcx, 104(%rsp)
	movq $x86_timer_upcall, 80(%rsp)
	mov %rbx, 40(%rsp)              /* upcall's rdi = now */
	mov %rax, 48(%rsp)              /* upcall's rsi = handler */
9:	pop %rbx
	pop %r11
	pop %r10
	pop %r9
	pop %r8
	pop %rdi
	pop %rsi
	pop %rcx
	pop %rdx
	pop %rax
	iretq

x86_timer_upcall:                   /* ring 3: handler(now) in %rsi(%rdi) */
	push %r8
	push %r9
	push %r10
	push %r11
	push %rbp
	mov %rsp, %rbp
	sub $512, %rsp
	and $-64, %rsp
	fxsave64 (%rsp)
	call *%rsi
	fxrstor64 (%rsp)
	mov %rbp, %rsp
	pop %rbp
	pop %r11
	pop %r10
	pop %r9
	pop %r8
	pop %rsi
	pop %rdi
	pop %rcx
	pop %rdx
	pop %rax
	popfq                           /* IF stays as it is (ring 3, IOPL 0) */
	pop %rsp                        /* = address of the interrupted rip */
	ret $128

	.globl x86_isr_spurious
x86_isr_spurious:                   /* LAPIC spurious vector: no EOI */
	iretq

/* long xt_run_unprivileged(long (*fn)(void *), void *arg)
 * From ring 0 with no ring-3 call active on this vCPU (x86_boot, smp.c's AP entry): run
 * fn(arg) in ring 3 on the vCPU's user stack, back through x86_user_return_ud2. From
 * ring 3 (all of xt_main), or from ring 0 while a ring-3 call is active (a trap handler;
 * must not reuse the user stack): a plain call. The state (saved ring-0 context, user
 * stack, TSS rsp0) is per vCPU, in the struct x86_percpu at the GS base (cpu.c). */
	.globl xt_run_unprivileged
xt_run_unprivileged:
	mov %cs, %eax
	test $3, %al
	jnz 1f
	cmpq $0, %gs:X86_PC_KRSP
	jne 1f
	push %rbp
	push %rbx
	push %r12
	push %r13
	push %r14
	push %r15
	pushfq
	mov %rsp, %gs:X86_PC_KRSP
	mov %rsp, %rax
	and $-16, %rax
	mov %gs:X86_PC_TSS, %rcx
	mov %rax, 4(%rcx)               /* rsp0: traps from ring 3 land below this frame */
	mov %rdi, %rax
	mov %rsi, %rdi                  /* arg */
	mov %rax, %rsi                  /* fn */
	pushq $(X86_USER_DS | 3)
	pushq %gs:X86_PC_USTACK
	pushq $0x202                    /* IF=1, IOPL=0 */
	pushq $(X86_USER_CS | 3)
	pushq $x86_user_trampoline
	iretq
1:	mov %rdi, %rax
	mov %rsi, %rdi
	jmp *%rax

x86_user_trampoline:                /* ring 3 */
	call *%rsi
x86_user_return_ud2:
	ud2

x86_user_return:                    /* ring 0, %rax = fn's result */
	mov %gs:X86_PC_KRSP, %rsp
	movq $0, %gs:X86_PC_KRSP
	popfq
	pop %r15
	pop %r14
	pop %r13
	pop %r12
	pop %rbx
	pop %rbp
	ret

/* long x86_syscall(long nr, long a, long b, long c): from ring 3 only. */
	.globl x86_syscall
x86_syscall:
	ud2
	ret

x86_syscall_entry:                  /* ring 0, arguments still in %rdi..%rcx */
	sub $8, %rsp
	call x86_syscall_dispatch
	add $8, %rsp
	addq $2, (%rsp)                 /* skip the ud2 */
	iretq
