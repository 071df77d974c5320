/* x86.h - private interfaces of the x86-64 probe platform (guests/lib/x86_64/).
 *
 * Privilege model (see entry.S): ring 0 does the minimum (boot, descriptor tables,
 * devices) and then runs the arch-neutral xt_main() in ring 3, because on kvm-pvm
 * hosts guest ring 0 is emulated instruction by instruction while ring 3 runs
 * natively. Platform functions that need ring 0 (console, exit, timer) detect the
 * current privilege level and, from ring 3, enter ring 0 through a `ud2` gate at a
 * known address (x86_syscall). Interrupts are disabled in ring 0 and enabled in ring 3;
 * nothing raises one unless xt_timer_oneshot() armed the LAPIC timer, whose handler is
 * then delivered to ring 3 like a signal (entry.S), never run in ring 0.
 * Started vCPUs (smp.c) do the same: ring 0 sets each one up, then xt_cpu_start's fn
 * runs in ring 3 on it; their local APICs stay software-disabled (no interrupts).
 *
 * Memory map (guest-physical = virtual, 2 MiB pages up to 4 GiB, the first 2 MiB in
 * 4 KiB pages for the NULL and stack guard pages; every page has U/S set):
 *   0x00100000  image (text, data, page tables, stacks, bss), must end below 16 MiB
 *   0x01000000  default sample ring (ring_gpa=0x1000000), never used by xt_alloc
 *   rest        xt_alloc bump allocator over usable RAM below 4 GiB
 */
#ifndef XT_X86_H
#define XT_X86_H

/* Segment selectors; must match the GDT in boot.S. */
#define X86_KERNEL_CS 0x08
#define X86_KERNEL_DS 0x10
#define X86_USER_DS   0x18
#define X86_USER_CS   0x20
#define X86_TSS_SEL   0x28       /* the boot vCPU's TSS; vCPU i's is X86_TSS_SEL + 16 * i */

/* vCPUs: the most this platform starts (smp.c), = guests/lib's XT_MAX_CPUS. Each has a
 * struct x86_percpu (cpu.c) that its GS base points at; entry.S reads these offsets. */
#define X86_MAX_CPUS   16
#define X86_PC_INDEX   8          /* uint32_t: the vCPU's index (xt_cpu_index) */
#define X86_PC_KRSP    16         /* ring-0 context of the active ring-3 call, or 0 */
#define X86_PC_TSS     24         /* its struct tss (entry.S writes rsp0 at +4) */
#define X86_PC_USTACK  32         /* top of its ring-3 stack */

/* Interrupt vectors besides the exceptions 0..31. */
#define X86_VEC_TIMER    0x40
#define X86_VEC_SPURIOUS 0xff
#define X86_ISR_STUB_SIZE 16     /* bytes between the exception stubs of entry.S */

/* aptramp.S's parameter block (x86_ap_tramp_params, filled in by smp.c in the copy
 * below 1 MiB): offsets. */
#define X86_AP_GDTR   0           /* u16 limit, u32 base: the temporary GDT below */
#define X86_AP_PM32   8           /* far pointer (u32 offset, u16 selector) to 32-bit code */
#define X86_AP_LM64   16          /* far pointer to 64-bit code */
#define X86_AP_CR0    24          /* u64 each: the boot vCPU's control registers and EFER */
#define X86_AP_CR3    32
#define X86_AP_CR4    40
#define X86_AP_EFER   48
#define X86_AP_STACK  56          /* the vCPU's ring-0 stack top */
#define X86_AP_CPU    64          /* its index */
#define X86_AP_GDT    72          /* 4 descriptors: null, 64-bit code, data, 32-bit code */
#define X86_AP_PARAMS_SIZE 104
#define X86_AP_CODE32 0x18        /* the temporary GDT's 32-bit code selector */

#ifdef __ASSEMBLER__
/* The kernel data segment in DS, ES and SS; FS and GS null (long-mode entry). */
.macro x86_kernel_data_segments
	mov $X86_KERNEL_DS, %eax
	mov %eax, %ds
	mov %eax, %es
	mov %eax, %ss
	xor %eax, %eax
	mov %eax, %fs
	mov %eax, %gs
.endm
#else
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "plat.h"

/* ud2 gate numbers (x86_syscall). */
enum { X86_SYS_WRITE = 1, X86_SYS_EXIT, X86_SYS_TIMER };
enum { X86_SYS_TRAP = 16 };     /* trap.c: one vmexit_storm operation in ring 0 */
enum { X86_SYS_CPU_INIT = 17, X86_SYS_CPU_SIPI, X86_SYS_CPU_RESET };  /* smp.c */

static inline void outb(uint16_t port, uint8_t v) { __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port)); }
static inline uint8_t inb(uint16_t port) { uint8_t v; __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port)); return v; }

static inline void cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	__asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(sub));
}
static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}
static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)) : "memory");
}
static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}
/* Current privilege level: 0 (kernel) or 3 (user). Reading %cs is allowed in ring 3. */
static inline unsigned x86_cpl(void)
{
	uint16_t cs;
	__asm__ volatile("mov %%cs, %0" : "=r"(cs));
	return cs & 3;
}

/* boot.S / entry.S */
extern uint64_t x86_pt_low[512];          /* 4 KiB page table for 0..2 MiB */
extern char x86_image_start[], x86_image_end[];
extern char x86_user_stack_guard[], x86_kernel_stack_guard[];
extern char x86_kernel_stack_top[], x86_ist_stack_top[], x86_user_stack_top[];
extern char x86_isr_table[];              /* 32 exception stubs */
extern char x86_isr_timer[], x86_isr_spurious[];
long x86_syscall(long nr, long a, long b, long c);

/* Boot information, copied out of the loader's structures before anything else. */
#define X86_MAX_MEMMAP 32
struct x86_mem_range { uint64_t base, size; };
struct x86_bootinfo {
	const char *platform;      /* "microvm", "pc" or "xen" */
	unsigned nram;             /* usable RAM ranges (E820 type 1) */
	struct x86_mem_range ram[X86_MAX_MEMMAP];
	uint64_t rsdp;             /* ACPI RSDP from the PVH start info, 0: search for it */
};
extern struct x86_bootinfo x86_boot_info;
void x86_pvh_parse(uint32_t start_info);
void x86_multiboot_parse(uint32_t mbi);

/* Devices. */
void x86_uart_init(void);
void x86_uart_write(const char *s, size_t n);
void x86_uart_flush(void);
/* The console: the Xen PV console when x86_xencons_init() found one, else COM1. */
void x86_console_out(const char *s, size_t n);
void x86_console_flush(void);
/* xen.c / xencons.c: Xen PVH domU support (ring 0). x86_xen_base() is Xen's CPUID base
 * leaf, 0 when not running on Xen. */
uint32_t x86_xen_base(void);
bool x86_xen_init(void);
long x86_xen_hypercall(unsigned nr, long a0, long a1);
void x86_xen_shutdown(void);
uint64_t x86_xen_tsc_hz(void);
bool x86_xencons_init(void);
void x86_pic_disable(void);
bool x86_pci_present(void);
void x86_exit_now(int status) __attribute__((noreturn));
typedef void (*x86_timer_fn)(uint64_t now);
bool x86_lapic_timer_arm(uint64_t deadline, x86_timer_fn handler);
x86_timer_fn x86_lapic_timer_irq(uint64_t now);
long x86_trap_ring0(long kind);     /* trap.c, from the ring-0 gate */


/* cpu.c / idt.c / mem.c */
struct x86_percpu {
	struct x86_percpu *self;
	uint32_t index, reserved;
	uint64_t kernel_rsp;
	void *tss;
	uint64_t user_stack_top;
};
_Static_assert(__builtin_offsetof(struct x86_percpu, index) == X86_PC_INDEX, "X86_PC_INDEX");
_Static_assert(__builtin_offsetof(struct x86_percpu, kernel_rsp) == X86_PC_KRSP, "X86_PC_KRSP");
_Static_assert(__builtin_offsetof(struct x86_percpu, tss) == X86_PC_TSS, "X86_PC_TSS");
_Static_assert(__builtin_offsetof(struct x86_percpu, user_stack_top) == X86_PC_USTACK, "X86_PC_USTACK");
void x86_cpu_init(void);                  /* the boot vCPU: x86_cpu_setup(0, boot.S's stacks), IDT */
/* vCPU cpu's GS base, TSS (rsp0 = kstack_top, IST 1 = ist_top) and ring-3 stack. */
void x86_cpu_setup(unsigned cpu, uintptr_t kstack_top, uintptr_t ist_top, uintptr_t ustack_top);
void x86_idt_init(void);
void x86_idt_load(void);                  /* the same IDT on another vCPU */
/* smp.c / lapic.c */
void x86_smp_init(void);                  /* ring 0 at boot: how many vCPUs (fw_cfg) */
long x86_smp_ring0(long nr, long cpu, long fn, long arg);   /* the X86_SYS_CPU_* gates */
bool x86_lapic_ipi(uint32_t apic_id, uint32_t icr);        /* false: no local APIC */
extern char x86_ap_tramp[], x86_ap_tramp_pm32[], x86_ap_tramp_lm64[];   /* aptramp.S */
extern char x86_ap_tramp_params[], x86_ap_tramp_end[];
void x86_ap_main(unsigned cpu) __attribute__((noreturn));  /* aptramp.S's jump into C */
void x86_mem_protect(void);
struct x86_frame;
void x86_exception(struct x86_frame *f);
long x86_syscall_dispatch(long nr, long a, long b, long c);
#endif /* __ASSEMBLER__ */
#endif
