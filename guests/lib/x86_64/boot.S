/* boot.S - entry points of the x86-64 probe image, GDT and static page tables.
 *
 * One ELF64 image, two ways in, both in 32-bit protected mode with paging off:
 *  - PVH (XEN_ELFNOTE_PHYS32_ENTRY): QEMU -M microvm, Xen PVH domU; %ebx = hvm_start_info.
 *  - Multiboot 1 with the a.out kludge (QEMU refuses multiboot ELF64 without it):
 *    QEMU -M pc -kernel; %eax = 0x2badb002, %ebx = multiboot_info.
 * QEMU -M microvm prefers multiboot when both exist, so the build also links
 * xtalk-probe-pvh.elf with the multiboot magic zeroed (x86_mb_magic, link.ld).
 * Both switch to long mode with identity-mapped page tables that are built at link
 * time (on kvm-pvm every ring-0 instruction is emulated, so boot code stays short),
 * enable SSE, and call x86_boot(kind, info) on the kernel stack. The loaders zero .bss.
 */
#include "x86.h"

#define PTE_P     0x001
#define PTE_RW    0x002
#define PTE_US    0x004
#define PTE_PWT   0x008
#define PTE_PCD   0x010
#define PTE_PS    0x080
#define PTE_DEF   (PTE_P | PTE_RW | PTE_US)

	.section .text.boot, "ax"
	.code32
	.balign 8
x86_multiboot_header:
	.long x86_mb_magic               /* magic, flags, checksum: see link.ld */
	.long x86_mb_flags
	.long x86_mb_checksum
	.long x86_multiboot_header      /* header_addr */
	.long x86_image_start           /* load_addr */
	.long x86_load_end              /* load_end_addr */
	.long x86_image_end             /* bss_end_addr */
	.long x86_multiboot_entry       /* entry_addr */

	.globl x86_pvh_entry
x86_pvh_entry:
	mov $1, %esi
	jmp 1f
	.globl x86_multiboot_entry
x86_multiboot_entry:
	mov $2, %esi
1:	cli
	cld
	mov %ebx, %edi
	mov $x86_kernel_stack_top, %esp
	pushl $2
	popfl
	lgdt x86_gdt_desc
	mov %cr4, %eax
	or $0x620, %eax                 /* PAE | OSFXSR | OSXMMEXCPT */
	mov %eax, %cr4
	mov $x86_pml4, %eax
	mov %eax, %cr3
	mov $0xc0000080, %ecx           /* EFER.LME */
	rdmsr
	or $0x100, %eax
	wrmsr
	mov %cr0, %eax
	and $~0x6000000c, %eax          /* clear CD, NW, TS, EM */
	or $0x80010023, %eax            /* PG, WP, NE, MP, PE */
	mov %eax, %cr0
	ljmp $X86_KERNEL_CS, $2f

	.code64
2:	x86_kernel_data_segments
	mov %edi, %edi                  /* zero-extend the two arguments */
	mov %esi, %esi
	xchg %rdi, %rsi                 /* x86_boot(kind, info) */
	fninit
	call x86_boot
3:	cli
	hlt
	jmp 3b

	/* PVH entry note. QEMU reads the descriptor as a 64-bit value. */
	.section .note.Xen, "a", @note
	.balign 4
	.long 4, 8, 18                  /* namesz, descsz, XEN_ELFNOTE_PHYS32_ENTRY */
	.asciz "Xen"
	.balign 4
	.quad x86_pvh_entry

	.data
	.balign 16
x86_gdt:
	.quad 0
	.quad 0x00af9a000000ffff        /* 0x08 kernel code, 64-bit */
	.quad 0x00cf92000000ffff        /* 0x10 kernel data */
	.quad 0x00cff2000000ffff        /* 0x18 user data, DPL 3 */
	.quad 0x00affa000000ffff        /* 0x20 user code, 64-bit, DPL 3 */
	.globl x86_gdt_tss
x86_gdt_tss:
	.fill 2 * X86_MAX_CPUS, 8, 0    /* 0x28 + 16 * cpu: each vCPU's TSS, filled in by cpu.c */
x86_gdt_end:
	.globl x86_gdt_desc
x86_gdt_desc:
	.word x86_gdt_end - x86_gdt - 1
	.quad x86_gdt

	/* Identity map of 0..4 GiB: 2 MiB pages except the first 2 MiB (4 KiB pages, so
	 * mem.c can unmap the NULL page and the stack guards); 0xfe000000.. uncached. */
	.balign 4096
x86_pml4:
	.quad x86_pdpt + PTE_DEF
	.fill 511, 8, 0
x86_pdpt:
	.quad x86_pd + PTE_DEF, x86_pd + 0x1000 + PTE_DEF
	.quad x86_pd + 0x2000 + PTE_DEF, x86_pd + 0x3000 + PTE_DEF
	.fill 508, 8, 0
x86_pd:
	.quad x86_pt_low + PTE_DEF
	.set i, 1
	.rept 2047
	.if i >= 0x7f0
	.quad (i << 21) | PTE_DEF | PTE_PS | PTE_PCD | PTE_PWT
	.else
	.quad (i << 21) | PTE_DEF | PTE_PS
	.endif
	.set i, i + 1
	.endr
	.globl x86_pt_low
x86_pt_low:
	.set i, 0
	.rept 512
	.quad (i << 12) | PTE_DEF
	.set i, i + 1
	.endr

	/* Stacks, each below a guard page (unmapped by mem.c). Must stay below 2 MiB. */
	.section .bss.stacks, "aw", @nobits
	.balign 4096
	.globl x86_kernel_stack_guard, x86_kernel_stack_top, x86_ist_stack_top
	.globl x86_user_stack_guard, x86_user_stack_top
x86_kernel_stack_guard:
	.skip 4096
	.skip 65536
x86_kernel_stack_top:
	.skip 16384                     /* IST 1: NMI, #DF, #MC */
x86_ist_stack_top:
x86_user_stack_guard:
	.skip 4096
	.skip 262144
x86_user_stack_top:
