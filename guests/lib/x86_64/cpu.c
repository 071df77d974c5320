/* cpu.c - per-vCPU state: a TSS each (rsp0 for traps from ring 3, IST 1 for NMI/#DF/#MC)
 * in its GDT slot (0x28 + 16 * cpu; the GDT itself is static in boot.S, shared by all
 * vCPUs), and a struct x86_percpu each that the vCPU's GS base points at (entry.S keeps
 * xt_run_unprivileged's state there; smp.c's xt_cpu_index reads it from ring 3).
 * Nothing executes swapgs or loads %gs, so the base is the same in ring 0 and ring 3. */
#include "x86.h"

struct tss {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3, iomap_base;
} __attribute__((packed));

static struct tss tss[X86_MAX_CPUS] __attribute__((aligned(128)));
static struct x86_percpu percpu[X86_MAX_CPUS];
extern uint64_t x86_gdt_tss[2 * X86_MAX_CPUS];

#define MSR_GS_BASE 0xc0000101

void x86_cpu_setup(unsigned cpu, uintptr_t kstack_top, uintptr_t ist_top, uintptr_t ustack_top)
{
	struct tss *t = &tss[cpu];
	struct x86_percpu *pc = &percpu[cpu];
	uint64_t base = (uintptr_t)t, limit = sizeof *t - 1;

	*pc = (struct x86_percpu){ .self = pc, .index = cpu, .tss = t, .user_stack_top = ustack_top };
	wrmsr(MSR_GS_BASE, (uintptr_t)pc);
	t->rsp[0] = kstack_top;
	t->ist[0] = ist_top;
	t->iomap_base = sizeof *t;      /* no I/O bitmap: ring 3 has no port access */
	/* type 0x89: available (a restarted vCPU's old busy TSS is made available again) */
	x86_gdt_tss[2 * cpu] = (limit & 0xffff) | ((base & 0xffffff) << 16) | (0x89ull << 40) |
			       ((limit >> 16) << 48) | (((base >> 24) & 0xff) << 56);
	x86_gdt_tss[2 * cpu + 1] = base >> 32;
	__asm__ volatile("ltr %w0" : : "r"(X86_TSS_SEL + 16 * cpu) : "memory");
}

void x86_cpu_init(void)
{
	x86_cpu_setup(0, (uintptr_t)x86_kernel_stack_top, (uintptr_t)x86_ist_stack_top,
		      (uintptr_t)x86_user_stack_top);
	x86_idt_init();
}
