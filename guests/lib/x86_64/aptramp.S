/* aptramp.S - where a started vCPU (application processor) begins: the STARTUP IPI's
 * page. smp.c copies x86_ap_tramp .. x86_ap_tramp_end to a page-aligned page below 1 MiB
 * and fills in the parameter block at its end (offsets in x86.h); the code here is
 * position-independent in real mode (%cs = page >> 4) and finds the block through %ebp.
 *   real mode  -> lgdt of a temporary GDT in the block, CR0.PE, far jump to 32-bit code;
 *   32-bit     -> the boot vCPU's CR4, CR3 (the same page tables), EFER (LME), then its
 *                 CR0 (PG, WP, NE, MP, PE: same feature bits as boot.S sets);
 *   64-bit     -> boot.S's GDT (same selectors), the vCPU's stack, fninit, x86_ap_main(cpu)
 *                 (smp.c), which loads the TSS, the IDT and the GS base.
 * Caveat: every instruction here is emulated on kvm-pvm (real mode and ring 0), so it
 * stays short; it uses no stack before the 64-bit part and touches no memory outside
 * its page but the page tables and the GDT of the image. */
#include "x86.h"

	.section .rodata.aptramp, "a"   /* a template: only its copy runs */
	.balign 16
	.globl x86_ap_tramp, x86_ap_tramp_pm32, x86_ap_tramp_lm64
	.globl x86_ap_tramp_params, x86_ap_tramp_end
	.set PARAMS, x86_ap_tramp_params - x86_ap_tramp

	.code16
x86_ap_tramp:
	cli
	cld
	mov %cs, %ax
	mov %ax, %ds
	xor %ebp, %ebp
	mov %ax, %bp
	shl $4, %ebp                    /* the page's physical address */
	lgdtl PARAMS + X86_AP_GDTR
	mov %cr0, %eax
	or $1, %eax                     /* PE */
	mov %eax, %cr0
	ljmpl *PARAMS + X86_AP_PM32

	.code32
x86_ap_tramp_pm32:
	mov $X86_KERNEL_DS, %eax
	mov %eax, %ds
	mov %eax, %es
	mov %eax, %ss
	mov PARAMS + X86_AP_CR4(%ebp), %eax
	mov %eax, %cr4
	mov PARAMS + X86_AP_CR3(%ebp), %eax
	mov %eax, %cr3
	mov $0xc0000080, %ecx           /* EFER */
	mov PARAMS + X86_AP_EFER(%ebp), %eax
	mov PARAMS + X86_AP_EFER + 4(%ebp), %edx
	wrmsr
	mov PARAMS + X86_AP_CR0(%ebp), %eax
	mov %eax, %cr0                  /* paging on: long mode (compatibility) */
	ljmp *PARAMS + X86_AP_LM64(%ebp)

	.code64
x86_ap_tramp_lm64:
	mov %ebp, %ebp                  /* zero-extend */
	lgdt x86_gdt_desc               /* absolute: this code runs from its copy */
	x86_kernel_data_segments
	mov PARAMS + X86_AP_STACK(%rbp), %rsp
	mov PARAMS + X86_AP_CPU(%rbp), %edi
	fninit
	movabs $x86_ap_main, %rax
	call *%rax
1:	cli
	hlt
	jmp 1b

	.balign 8
x86_ap_tramp_params:
	.skip X86_AP_PARAMS_SIZE
x86_ap_tramp_end:
