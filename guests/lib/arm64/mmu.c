/* mmu.c - the identity map and turning the MMU on (see arm64.h for the map).
 * 4 KiB granule, 39-bit VA (T0SZ = 25: walks start at level 1, 1 GiB per entry),
 * 2 MiB blocks where a range allows, 4 KiB pages elsewhere, tables from a static pool
 * (arm64_pt_pool, EL1 only). Built with the MMU off before the first console line;
 * secondary vCPUs load the same TTBR0/TCR/MAIR/SCTLR (smp.c copies the boot vCPU's);
 * arm64_map() can add mappings later (new entries only, no break-before-make).
 * Caveats: RAM above 512 GiB is not mapped; a region needing more tables than the
 * pool holds is left (partly) unmapped and arm64_map() returns false. */
#include "arm64.h"

#define PA_MASK   0x0000fffffffff000ull
#define DESC_TABLE 3ull
#define DESC_BLOCK 1ull
#define DESC_PAGE  3ull
#define ATTR_DEVICE (0ull << 2)         /* MAIR index 0: Device-nGnRE */
#define ATTR_NORMAL (1ull << 2)         /* MAIR index 1: Normal, write-back */
#define AP_EL1_RW  (0ull << 6)
#define AP_ALL_RW  (1ull << 6)
#define AP_ALL_RO  (3ull << 6)
#define SH_INNER   (3ull << 8)
#define AF         (1ull << 10)
#define PXN        (1ull << 53)
#define UXN        (1ull << 54)
#define SZ_2M      0x200000ull
#define VA_LIMIT   (1ull << 39)

#define MAIR_VALUE 0xff04ull
#define SCTLR_MMU_ON 0x34d0d81dull      /* RES1 | M C SA SA0 I DZE UCT UCI */

static uint64_t *l1;
static unsigned used;
static bool mmu_on;
static bool ram_ok[ARM64_MAX_RANGES];

static uint64_t attrs(int kind)
{
	switch (kind) {
	case ARM64_MAP_DEVICE: return ATTR_DEVICE | AF | AP_EL1_RW | PXN | UXN;
	case ARM64_MAP_NORMAL_EL1: return ATTR_NORMAL | SH_INNER | AF | AP_EL1_RW | PXN | UXN;
	case ARM64_MAP_RAM: return ATTR_NORMAL | SH_INNER | AF | AP_ALL_RW | PXN | UXN;
	case ARM64_MAP_TEXT: return ATTR_NORMAL | SH_INNER | AF | AP_ALL_RO;
	case ARM64_MAP_RO: return ATTR_NORMAL | SH_INNER | AF | AP_ALL_RO | PXN | UXN;
	}
	return 0;
}

static uint64_t *new_table(void)
{
	return used < ARM64_PT_PAGES ? arm64_pt_pool[used++] : NULL;
}

/* The table an L1 (level 1) or L2 (level 2) entry points to; created if invalid,
 * split (same attributes) if it is a block. */
static uint64_t *next_level(uint64_t *entry, int level)
{
	uint64_t e = *entry, *t;

	if ((e & 3) == DESC_TABLE)
		return (uint64_t *)(uintptr_t)(e & PA_MASK);
	if (!(t = new_table()))
		return NULL;
	if ((e & 3) == DESC_BLOCK) {
		uint64_t step = level == 1 ? (1ull << 30) / 512 : 4096;
		uint64_t base = e & PA_MASK & ~(step * 512 - 1), a = e & ~PA_MASK & ~3ull;
		for (unsigned i = 0; i < 512; i++)
			t[i] = (base + i * step) | a | (level == 1 ? DESC_BLOCK : DESC_PAGE);
	}
	__asm__ volatile("dsb ishst" : : : "memory");
	*entry = (uintptr_t)t | DESC_TABLE;
	return t;
}

bool arm64_map(uint64_t pa, uint64_t size, int kind)
{
	uint64_t a = pa & ~4095ull, end = (pa + size + 4095) & ~4095ull, at = attrs(kind);
	bool ok = true;

	if (end > VA_LIMIT || end < a)
		return false;
	while (a < end) {
		uint64_t *l2 = next_level(&l1[(a >> 30) & 511], 1), *e2, *l3;
		if (!l2) {
			ok = false;
			break;
		}
		e2 = &l2[(a >> 21) & 511];
		if (!(a & (SZ_2M - 1)) && end - a >= SZ_2M && (*e2 & 3) != DESC_TABLE) {
			*e2 = kind == ARM64_MAP_NONE ? 0 : a | at | DESC_BLOCK;
			a += SZ_2M;
			continue;
		}
		if (kind == ARM64_MAP_NONE && !(*e2 & 1)) {
			a += 4096;
			continue;
		}
		if (!(l3 = next_level(e2, 2))) {
			ok = false;
			break;
		}
		l3[(a >> 12) & 511] = kind == ARM64_MAP_NONE ? 0 : a | at | DESC_PAGE;
		a += 4096;
	}
	if (mmu_on)
		__asm__ volatile("dsb ishst; tlbi vmalle1; dsb ish; isb" : : : "memory");
	return ok;
}

bool arm64_ram_mapped(uint64_t pa, uint64_t size)
{
	const struct arm64_board *b = &arm64_board;
	for (unsigned i = 0; i < b->nram; i++)
		if (ram_ok[i] && pa >= b->ram[i].base && pa + size <= b->ram[i].base + b->ram[i].size &&
		    pa + size >= pa)
			return true;
	return false;
}

static void dcache_inval(uint64_t start, uint64_t end)
{
	uint64_t line = 4ull << ((read_sysreg(ctr_el0) >> 16) & 15);
	for (uint64_t a = start & ~(line - 1); a < end; a += line)
		__asm__ volatile("dc ivac, %0" : : "r"(a) : "memory");
	dsb_sy();
}

static uint64_t dev_size(uint64_t size, uint64_t dflt)
{
	if (!size)
		size = dflt;
	return size > (32u << 20) ? 32u << 20 : size;
}

void arm64_mmu_init(void)
{
	const struct arm64_board *b = &arm64_board;
	uint64_t img = (uintptr_t)arm64_image_start, text = (uintptr_t)arm64_text_end;
	uint64_t ro = (uintptr_t)arm64_rodata_end, priv = (uintptr_t)arm64_priv_start;
	uint64_t end = (uintptr_t)arm64_image_end;

	l1 = new_table();
	for (unsigned i = 0; i < b->nram; i++)
		ram_ok[i] = b->ram[i].base + b->ram[i].size <= VA_LIMIT &&
			    arm64_map(b->ram[i].base, b->ram[i].size, ARM64_MAP_RAM);
	arm64_map(img, text - img, ARM64_MAP_TEXT);
	arm64_map(text, ro - text, ARM64_MAP_RO);
	arm64_map(ro, priv - ro, ARM64_MAP_RAM);
	arm64_map(priv, end - priv, ARM64_MAP_NORMAL_EL1);
	arm64_map((uintptr_t)arm64_user_stack_guard, 4096, ARM64_MAP_NONE);
	arm64_map((uintptr_t)arm64_kstack_guard, 4096, ARM64_MAP_NONE);
	arm64_map((uintptr_t)arm64_exc_stack_guard, 4096, ARM64_MAP_NONE);
	for (unsigned i = 0; i + 1 < ARM64_MAX_CPUS; i++) {     /* the secondaries' guards */
		uint64_t st = (uintptr_t)arm64_cpu_stacks + (uint64_t)i * ARM64_CPU_STACKS;
		arm64_map(st, 4096, ARM64_MAP_NONE);
		arm64_map(st + 4096 + ARM64_USTACK_BYTES, 4096, ARM64_MAP_NONE);
		arm64_map((uintptr_t)arm64_cpu_xstacks + (uint64_t)i * ARM64_CPU_XSTACKS, 4096, ARM64_MAP_NONE);
	}
	if (b->uart != UART_NONE)
		arm64_map(b->uart_base, 4096, ARM64_MAP_DEVICE);
	if (b->gic != GIC_NONE) {
		arm64_map(b->gicd, dev_size(b->gicd_size, 0x10000), ARM64_MAP_DEVICE);
		arm64_map(b->gicc, dev_size(b->gicc_size, 0x20000), ARM64_MAP_DEVICE);
	}
	if (b->gpio_base)
		arm64_map(b->gpio_base, 4096, ARM64_MAP_DEVICE);

	uint64_t pa_range = read_sysreg(id_aa64mmfr0_el1) & 15;
	uint64_t tcr = 25 | (1ull << 8) | (1ull << 10) | (3ull << 12) | (1ull << 23) |
		       ((pa_range > 5 ? 5 : pa_range) << 32);
	write_sysreg(mair_el1, MAIR_VALUE);
	write_sysreg(tcr_el1, tcr);
	write_sysreg(ttbr0_el1, (uintptr_t)l1);
	/* Lines of the image may be stale in the caches (written above with them off). */
	dcache_inval(img, end);
	__asm__ volatile("tlbi vmalle1; dsb nsh; isb" : : : "memory");
	write_sysreg(sctlr_el1, SCTLR_MMU_ON);
	isb();
	__asm__ volatile("ic iallu; dsb nsh; isb" : : : "memory");
	mmu_on = true;
}
