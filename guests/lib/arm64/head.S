/* head.S - the Linux arm64 Image header and the entry point.
 *
 * Loaders (QEMU -M virt -kernel, Xen's domain builder, U-Boot booti) put the image at
 * a 2 MiB aligned RAM base + text_offset and enter at its first byte with the MMU
 * off, x0 = physical address of the device tree, at EL2 or EL1. text_offset is 2 MiB,
 * so with RAM at 0x40000000 (QEMU virt, Xen guests) the image lands at its link
 * address 0x40200000 (QEMU adds 2 MiB to small offsets anyway; its boot stub sits at
 * the RAM base). If a loader put it elsewhere, it is copied to the link address first.
 * Then: EL2 -> EL1, zero .bss, FP/SIMD on, VBAR_EL1, vCPU index 0 (TPIDRRO_EL0), the
 * exception stack (TPIDR_EL1), stack, arm64_boot(dtb).
 */
#include "arm64.h"

	.section .text.head, "ax"
	.globl _start
_start:
	b arm64_entry                   /* code0 */
	.long 0                         /* code1 */
	.quad 0x200000                  /* text_offset */
	.quad arm64_image_size          /* image_size: the whole image including .bss */
	.quad 0x2                       /* flags: little endian, 4 KiB pages, 2 MiB base near RAM start */
	.quad 0, 0, 0                   /* res2..res4 */
	.ascii "ARM\x64"                /* magic */
	.long 0                         /* res5 (no PE header) */

arm64_entry:
	mov x19, x0                     /* device tree */
	msr daifset, #0xf
	mrs x1, CurrentEL
	lsr x1, x1, #2
	cmp x1, #2
	b.ne 1f
	bl arm64_el2_to_el1
1:
	/* At the link address? If not, copy the loaded part of the image there. */
	adr x1, _start
	ldr x2, =_start
	cmp x1, x2
	b.eq 5f
	ldr x3, =arm64_load_size
	cmp x2, x1
	b.hi 3f
	mov x4, #0                      /* destination below the source: copy forwards */
2:	add x7, x1, x4
	ldp x5, x6, [x7]
	add x7, x2, x4
	stp x5, x6, [x7]
	add x4, x4, #16
	cmp x4, x3
	b.lo 2b
	b 4f
3:	subs x3, x3, #16                /* destination above the source: copy backwards */
	add x7, x1, x3
	ldp x5, x6, [x7]
	add x7, x2, x3
	stp x5, x6, [x7]
	b.hi 3b
4:	dsb sy
	ic iallu
	dsb sy
	isb
	ldr x1, =5f
	br x1
5:
	/* Zero .bss (both NOBITS sections: contiguous, 16-byte aligned). */
	ldr x1, =arm64_bss_start
	ldr x2, =arm64_image_end
6:	cmp x1, x2
	b.hs 7f
	stp xzr, xzr, [x1], #16
	b 6b
7:
	mov x1, #(3 << 20)              /* CPACR_EL1.FPEN: FP/SIMD at EL1 and EL0 */
	msr cpacr_el1, x1
	ldr x1, =arm64_vectors
	msr vbar_el1, x1
	msr tpidrro_el0, xzr            /* vCPU index 0 (smp.c) */
	ldr x1, =arm64_exc_stack_top    /* this vCPU's exception stack (vectors.S) */
	msr tpidr_el1, x1
	isb
	ldr x1, =arm64_kstack_top
	mov sp, x1
	mov x0, x19
	bl arm64_boot
8:	wfi
	b 8b
	.ltorg

/* arm64_el2_to_el1: called at EL2 with the MMU off (the boot vCPU here, secondaries in
 * smp_entry.S), returns to the caller at EL1 (x30 intact, x1 clobbered, DAIF masked).
 * EL2 (QEMU virtualization=on, bare metal with a hypervisor-capable loader): run EL1 in
 * AArch64 with the physical timer/counter open, no traps of FP. */
	.globl arm64_el2_to_el1
arm64_el2_to_el1:
	mov x1, #(1 << 31)              /* HCR_EL2.RW */
	msr hcr_el2, x1
	mrs x1, cnthctl_el2
	orr x1, x1, #3                  /* EL1PCTEN | EL1PCEN */
	msr cnthctl_el2, x1
	msr cntvoff_el2, xzr
	mov x1, #0x33ff                 /* CPTR_EL2: RES1 bits, TFP = 0 */
	msr cptr_el2, x1
	mrs x1, id_aa64pfr0_el1
	ubfx x1, x1, #24, #4            /* GIC system registers implemented? */
	cbz x1, 2f
	mrs x1, S3_4_C12_C9_5           /* ICC_SRE_EL2: SRE | Enable (EL1 may use them) */
	orr x1, x1, #0x1
	orr x1, x1, #0x8
	msr S3_4_C12_C9_5, x1
	isb
2:	ldr x1, =0x30d00800             /* SCTLR_EL1: RES1 bits, MMU and caches off */
	msr sctlr_el1, x1
	mov x1, #0x3c5                  /* SPSR: EL1h, DAIF masked */
	msr spsr_el2, x1
	msr elr_el2, x30
	eret
	.ltorg

	/* Page-table pool for mmu.c (EL1 only, see link.ld). */
	.section .pagetables, "aw", %nobits
	.balign 4096
	.globl arm64_pt_pool
arm64_pt_pool:
	.skip 4096 * ARM64_PT_PAGES
