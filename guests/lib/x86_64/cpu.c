/* cpu.c - TSS (rsp0 for traps from ring 3, IST 1 for NMI/#DF/#MC) and its GDT slot.
 * The GDT itself is static in boot.S. */
#include "x86.h"

struct tss {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3, iomap_base;
} __attribute__((packed));

struct tss x86_tss;                 /* entry.S writes rsp0 at offset 4 */
extern uint64_t x86_gdt_tss[2];

void x86_cpu_init(void)
{
	uint64_t base = (uintptr_t)&x86_tss, limit = sizeof x86_tss - 1;
	x86_tss.rsp[0] = (uintptr_t)x86_kernel_stack_top;
	x86_tss.ist[0] = (uintptr_t)x86_ist_stack_top;
	x86_tss.iomap_base = sizeof x86_tss;    /* no I/O bitmap: ring 3 has no port access */
	x86_gdt_tss[0] = (limit & 0xffff) | ((base & 0xffffff) << 16) | (0x89ull << 40) |
			 ((limit >> 16) << 48) | (((base >> 24) & 0xff) << 56);
	x86_gdt_tss[1] = base >> 32;
	__asm__ volatile("ltr %w0" : : "r"(X86_TSS_SEL));
	x86_idt_init();
}
