/* arm64.h - private interfaces of the arm64 probe platform (guests/lib/arm64/).
 *
 * Boot: a Linux arm64 Image (64-byte header, text_offset 2 MiB, linked at 0x40200000)
 * entered at EL2 or EL1 with the MMU off and x0 = the device tree (head.S). The FDT
 * tells where RAM, the UART, the GIC, the timer interrupt and PSCI are (fdt.c,
 * board.c). boot.c builds an identity map (mmu.c), turns the MMU on and calls the
 * arch-neutral xt_main() at EL1.
 *
 * Privilege model: EL1 runs the driver (parameters, allocation, printing) with IRQs
 * masked; xt_run_unprivileged() runs measurement loops at EL0 with IRQs unmasked.
 * From EL0, platform functions that need EL1 (console, exit, timer, GPIO) enter it with
 * `svc #1` (arm64_svc); `svc #0` at the end of the EL0 trampoline returns from
 * xt_run_unprivileged. arm64_at_el0 says which level the vCPU is at (EL0 cannot read
 * CurrentEL; one per vCPU, arm64_percpu); the exception entry code clears it and the
 * return to EL0 sets it. Secondary vCPUs (smp.c) run the same way, IRQs masked.
 *
 * Memory map (identity, 4 KiB granule, 39-bit VA): RAM from the DTB as Normal WB,
 * EL0 read/write, never executable except the image's .text (read-only for both ELs,
 * executable by both); .rodata read-only; page tables and the exception stack
 * EL1-only (the EL1 stack is not: EL1 code may pass pointers to its locals to EL0
 * code); guard pages below the three stacks and the NULL page are unmapped. Devices (UART, GIC, PL061 GPIO, Xen console page) are mapped page by page, EL1-only.
 *   0x40000000  RAM base on QEMU virt and Xen (QEMU's boot stub, maybe the DTB)
 *   0x40200000  the image (text, rodata, data, bss, stacks, page tables), < 14 MiB
 *   0x41000000  suggested sample ring (ring_gpa=0x41000000: file offset 16 MiB)
 *   rest        xt_alloc bump allocator over RAM, minus the DTB and reserved ranges
 */
#ifndef XT_ARM64_H
#define XT_ARM64_H

/* Exception frame (vectors.S <-> C); offsets in bytes. */
#define ARM64_F_SP     248
#define ARM64_F_ELR    256
#define ARM64_F_SPSR   264
#define ARM64_F_ESR    272
#define ARM64_F_FAR    280
#define ARM64_F_Q0     288
#define ARM64_F_FPSR   800
#define ARM64_F_FPCR   808
#define ARM64_F_NOW    816
#define ARM64_FRAME    832

/* Exception kinds passed from vectors.S to C. */
#define ARM64_EXC_SYNC   0
#define ARM64_EXC_IRQ    1
#define ARM64_EXC_FIQ    2
#define ARM64_EXC_SERROR 3
#define ARM64_EXC_EL0    4     /* or'ed in when taken from EL0 */
#define ARM64_EXC_SP0    8     /* or'ed in: taken at EL1 while on SP_EL0 (never expected) */

#define ARM64_PT_PAGES 40       /* page-table pool: L1 + L2/L3 tables */

/* Several vCPUs (smp.c, smp_entry.S). Index 0 is the boot vCPU; TPIDRRO_EL0 holds the
 * calling vCPU's index (read-only at EL0, so xt_cpu_index() is one mrs at either level),
 * TPIDR_EL1 the top of its exception stack (vectors.S). arm64_percpu[index] holds the
 * per-vCPU state of xt_run_unprivileged (ARM64_PC_* offsets, 64 bytes each). vCPUs
 * beyond ARM64_MAX_CPUS are not used. Secondary stacks (smp_entry.S), per vCPU from
 * low to high: guard, EL0 stack, guard, EL1 stack; and (EL1 only) guard, exception
 * stack; the sizes of the boot vCPU's (link.ld). */
#define ARM64_MAX_CPUS     16   /* = xt.h XT_MAX_CPUS */
#define ARM64_PC_KERNEL_SP 0    /* EL1 context of the active EL0 call, or 0 */
#define ARM64_PC_USER_TOP  8    /* top of this vCPU's EL0 stack */
#define ARM64_PC_AT_EL0    16   /* 1 while this vCPU runs at EL0 */
#define ARM64_PC_SHIFT     6
#define ARM64_USTACK_BYTES 262144
#define ARM64_KSTACK_BYTES 65536
#define ARM64_XSTACK_BYTES 16384
#define ARM64_CPU_STACKS   (4096 + ARM64_USTACK_BYTES + 4096 + ARM64_KSTACK_BYTES)
#define ARM64_CPU_XSTACKS  (4096 + ARM64_XSTACK_BYTES)
/* The secondary's start block (smp.c fills it, smp_entry.S reads it with the MMU off). */
#define ARM64_SB_MAIR      0
#define ARM64_SB_TCR       8
#define ARM64_SB_TTBR0     16
#define ARM64_SB_SCTLR     24
#define ARM64_SB_CPACR     32
#define ARM64_SB_VBAR      40
#define ARM64_SB_XSTACK    48
#define ARM64_SB_KSTACK    56
#define ARM64_SB_INDEX     64

#ifndef __ASSEMBLER__
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "plat.h"

struct arm64_frame {
	uint64_t x[31];
	uint64_t sp, elr, spsr, esr, far;
	uint64_t q[64];
	uint64_t fpsr, fpcr, now, pad;
};
_Static_assert(sizeof(struct arm64_frame) == ARM64_FRAME, "frame layout");

/* System registers. */
#define read_sysreg(r) ({ uint64_t _v; __asm__ volatile("mrs %0, " #r : "=r"(_v)); _v; })
#define write_sysreg(r, v) __asm__ volatile("msr " #r ", %0" : : "r"((uint64_t)(v)) : "memory")
static inline void isb(void) { __asm__ volatile("isb" : : : "memory"); }
static inline void dsb_sy(void) { __asm__ volatile("dsb sy" : : : "memory"); }

static inline void mmio_w32(uint64_t a, uint32_t v)
{
	__asm__ volatile("str %w0, [%1]" : : "r"(v), "r"(a) : "memory");
}
static inline uint32_t mmio_r32(uint64_t a)
{
	uint32_t v;
	__asm__ volatile("ldr %w0, [%1]" : "=r"(v) : "r"(a) : "memory");
	return v;
}
static inline uint64_t mmio_r64(uint64_t a)
{
	uint64_t v;
	__asm__ volatile("ldr %0, [%1]" : "=r"(v) : "r"(a) : "memory");
	return v;
}

/* head.S / vectors.S / link.ld */
extern char arm64_image_start[], arm64_text_end[], arm64_rodata_end[], arm64_image_end[];
extern char arm64_priv_start[];
extern char arm64_user_stack_guard[], arm64_kstack_guard[], arm64_exc_stack_guard[];
extern char arm64_vectors[];
extern uint64_t arm64_pt_pool[ARM64_PT_PAGES][512];
struct arm64_percpu {                       /* vectors.S: ARM64_PC_* */
	uint64_t kernel_sp, user_top;
	volatile uint32_t at_el0;
	uint32_t pad[11];
};
_Static_assert(sizeof(struct arm64_percpu) == 1 << ARM64_PC_SHIFT, "per-CPU layout");
extern struct arm64_percpu arm64_percpu[ARM64_MAX_CPUS];
static inline unsigned arm64_cpu(void)      /* this vCPU's index (TPIDRRO_EL0) */
{
	uint64_t v;
	__asm__ volatile("mrs %0, tpidrro_el0" : "=r"(v));
	return (unsigned)v;
}
#define arm64_at_el0 (arm64_percpu[arm64_cpu()].at_el0)   /* 1 while this vCPU runs at EL0 */
long arm64_svc(long nr, long a, long b, long c);   /* `svc #1` from EL0 */
enum { ARM64_SYS_WRITE = 1, ARM64_SYS_EXIT, ARM64_SYS_TIMER, ARM64_SYS_GPIO, ARM64_SYS_GPIO_OUT };
enum { ARM64_SYS_TRAP = 16 };   /* trap.c: one vmexit_storm operation at EL1 */
long arm64_trap_el1(long kind);

/* What the device tree says (board.c fills it from fdt.c's walk). */
#define ARM64_MAX_RANGES 16
struct arm64_range { uint64_t base, size; };
enum arm64_uart_kind { UART_NONE, UART_PL011, UART_SBSA };
enum arm64_gic_kind { GIC_NONE, GIC_V2, GIC_V3 };
struct arm64_board {
	const char *platform;              /* "virt", "xen" or "dt" */
	bool dtb_ok;
	uint64_t dtb, dtb_size;
	unsigned nram, nrsv;
	struct arm64_range ram[ARM64_MAX_RANGES];
	struct arm64_range rsv[ARM64_MAX_RANGES];   /* /memreserve/ and /reserved-memory */
	enum arm64_uart_kind uart;
	uint64_t uart_base;
	enum arm64_gic_kind gic;
	uint64_t gicd, gicd_size, gicc, gicc_size;  /* gicc = GICv2 CPU iface or GICv3 redistributors */
	unsigned vtimer_intid;             /* virtual timer PPI as a GIC INTID (27) */
	uint64_t gpio_base;                /* the first "arm,pl061" GPIO controller, 0: none */
	unsigned gpio_intid;               /* its interrupt as a GIC INTID (QEMU virt: SPI 7 = 39) */
	enum { PSCI_NONE, PSCI_HVC, PSCI_SMC } psci;
	bool xen;
	unsigned ncpus;                    /* /cpus nodes with device_type "cpu", at most ARM64_MAX_CPUS */
	uint64_t mpidr[ARM64_MAX_CPUS];    /* their reg (MPIDR affinity), in DTB order */
};
extern struct arm64_board arm64_board;

/* fdt.c: a flattened device tree walker. Calls node() once per node after all its
 * properties (and before its children); props are looked up with fdt_prop(). */
struct fdt_node {
	const char *name;                   /* "" for the root, "memory@40000000", ... */
	int depth;
	const struct fdt_node *parent;
	uint32_t addr_cells, size_cells;    /* for this node's children */
	const uint8_t *props, *props_end;   /* the node's property tokens */
	char path[192];                     /* "/pl011@9000000" */
};
bool fdt_valid(const void *fdt, uint64_t *size);
void fdt_walk(const void *fdt, void (*node)(const struct fdt_node *n, void *ctx), void *ctx);
const uint8_t *fdt_prop(const void *fdt, const struct fdt_node *n, const char *name, uint32_t *len);
bool fdt_compatible(const void *fdt, const struct fdt_node *n, const char *name);
/* reg entry i as (base, size) using the parent's cell counts. */
bool fdt_reg(const void *fdt, const struct fdt_node *n, unsigned i, uint64_t *base, uint64_t *size);
/* /memreserve/ entry i. */
bool fdt_memreserve(const void *fdt, unsigned i, uint64_t *base, uint64_t *size);
uint32_t fdt_be32(const uint8_t *p);

/* board.c */
void arm64_board_parse(uint64_t dtb);

/* mmu.c: ARM64_MAP_* are the kinds of mapping. */
enum { ARM64_MAP_DEVICE, ARM64_MAP_NORMAL_EL1, ARM64_MAP_RAM, ARM64_MAP_TEXT, ARM64_MAP_RO,
       ARM64_MAP_NONE };
void arm64_mmu_init(void);
bool arm64_map(uint64_t pa, uint64_t size, int kind);   /* works with the MMU on too */
bool arm64_ram_mapped(uint64_t pa, uint64_t size);

/* Devices. */
void arm64_console_init(void);                  /* console.c: the UART (MMU off) */
void arm64_console_upgrade(void);               /* Xen PV console (MMU on) */
void arm64_console_write(const char *s, size_t n);
void arm64_console_flush(void);
void pl011_init(uint64_t base, bool full);
void pl011_write(const char *s, size_t n);
void pl011_flush(void);
bool arm64_xencons_init(void);                  /* xencons.c (plat_xen.c) */
long arm64_xen_hypercall(long nr, long a0, long a1, long a2);   /* vectors.S */
void arm64_timer_init(void);                    /* timer.c */
bool arm64_timer_arm(uint64_t deadline, void (*h)(uint64_t now));
void arm64_timer_irq(uint32_t iar, uint64_t now);
bool arm64_gpio_arm(unsigned in_pin, unsigned out_pin, void (*h)(uint64_t now));   /* pl061.c */
bool arm64_gpio_out(unsigned pin);
void arm64_gpio_irq(uint32_t iar, uint64_t now);
void arm64_irq(uint64_t now);                   /* irq.c: an IRQ taken from EL0, to its device */
bool gic_init(void);                            /* gic.c: picks v2 or v3; once */
bool gic_enable_ppi(unsigned intid);
bool gic_enable_spi(unsigned intid);            /* a level-sensitive SPI, to this CPU */
uint32_t gic_ack(void);                         /* INTID (1023: spurious) */
void gic_eoi(uint32_t iar);
bool gicv2_init(uint64_t gicd, uint64_t gicc);
void gicv2_enable_ppi(unsigned intid);
void gicv2_enable_spi(unsigned intid);
uint32_t gicv2_ack(void);
void gicv2_eoi(uint32_t iar);
bool gicv3_init(uint64_t gicd, uint64_t gicr, uint64_t gicr_size);
void gicv3_enable_ppi(unsigned intid);
void gicv3_enable_spi(unsigned intid);
uint32_t gicv3_ack(void);
void gicv3_eoi(uint32_t iar);
void arm64_psci_off(void);                      /* psci.c; returns if PSCI is absent */
long arm64_psci_call(uint64_t fn, uint64_t a0, uint64_t a1, uint64_t a2);   /* -1 (NOT_SUPPORTED) without PSCI */
void arm64_exit_now(int status) __attribute__((noreturn));
void arm64_cache_detect(void);                  /* cache.c */
void arm64_el2_to_el1(void);                    /* head.S: from EL2 (MMU off), returns at EL1 */
void arm64_secondary_entry(void);               /* smp_entry.S: PSCI CPU_ON's entry point */
extern char arm64_cpu_stacks[], arm64_cpu_xstacks[];   /* smp_entry.S */
extern volatile bool arm64_smp_on;              /* smp.c: a secondary has been started */


/* traps.c */
void arm64_el0_exception(struct arm64_frame *f, unsigned kind);
void arm64_el1_exception(struct arm64_frame *f, unsigned kind) __attribute__((noreturn));
void arm64_boot(uint64_t dtb);
#endif /* __ASSEMBLER__ */
#endif
