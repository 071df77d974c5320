/* idt.c - the IDT and the exception report. Any exception other than the two ud2
 * gates of entry.S ends the run:
 *   XT ERROR run=R msg="fault vector=V rip=0x... addr=0x... err=0x..."
 *   XT END run=R status=fault
 * (addr is CR2 for a page fault, else 0) and exit status 1. Vectors not in the IDT
 * (an unexpected interrupt) arrive as #GP with err = vector * 8 + 2. */
#include "platform.h"
#include "x86.h"

struct gate {
	uint16_t off0, sel;
	uint8_t ist, type;
	uint16_t off1;
	uint32_t off2, reserved;
};

struct x86_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8, rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, err, rip, cs, rflags, rsp, ss;
};

static struct gate idt[256] __attribute__((aligned(16)));

static void set_gate(unsigned v, void *fn, unsigned ist)
{
	uintptr_t a = (uintptr_t)fn;
	idt[v] = (struct gate){ .off0 = a & 0xffff, .sel = X86_KERNEL_CS, .ist = ist,
				.type = 0x8e, .off1 = (a >> 16) & 0xffff, .off2 = a >> 32 };
}

void x86_idt_init(void)
{
	for (unsigned v = 0; v < 32; v++)
		set_gate(v, x86_isr_table + v * X86_ISR_STUB_SIZE, v == 2 || v == 8 || v == 18);
	set_gate(X86_VEC_TIMER, x86_isr_timer, 0);
	set_gate(X86_VEC_SPURIOUS, x86_isr_spurious, 0);
	x86_idt_load();
}

void x86_idt_load(void)
{
	struct { uint16_t limit; uint64_t base; } __attribute__((packed)) d = { sizeof idt - 1, (uintptr_t)idt };
	__asm__ volatile("lidt %0" : : "m"(d));
}

void x86_exception(struct x86_frame *f)
{
	static bool reporting;
	uint64_t addr = 0;
	if (reporting)                  /* faulted while reporting: just stop */
		x86_exit_now(1);
	reporting = true;
	if (f->vector == 14)
		__asm__ volatile("mov %%cr2, %0" : "=r"(addr));
	plat_print("XT ERROR ");
	plat_print_run();
	plat_print(" msg=\"fault vector=");
	plat_print_u64(f->vector, 10);
	plat_print(" rip=0x");
	plat_print_u64(f->rip, 16);
	plat_print(" addr=0x");
	plat_print_u64(addr, 16);
	plat_print(" err=0x");
	plat_print_u64(f->err, 16);
	plat_print("\"\nXT END ");
	plat_print_run();
	plat_print(" status=fault\n");
	x86_exit_now(1);
}
