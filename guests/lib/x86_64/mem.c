/* mem.c - guard pages, the sample ring region and the xt_alloc bump allocator.
 *
 * Ring convention: the host backs all guest RAM with a shared file
 * (-object memory-backend-file,...,share=on -machine memory-backend=mem) and passes
 * ring_gpa=0x... ring_bytes=N; guest-physical address = file offset in low RAM.
 * Suggested default: ring_gpa=0x1000000 (16 MiB), above the image (which must end
 * below 16 MiB, checked by link.ld). The region must lie in usable RAM below 4 GiB,
 * clear of the image, 64-byte aligned; xt_alloc never hands it out.
 *
 * xt_alloc (plat_mem.c): from usable RAM (boot memory map) above
 * the image and below 4 GiB (the identity map's end). */
#include "plat_arch.h"

#define MAP_END 0x100000000ull

static void unmap_low(uintptr_t addr)
{
	x86_pt_low[(addr >> 12) & 511] = 0;
}

void x86_mem_protect(void)
{
	unmap_low(0);                                   /* NULL page */
	unmap_low((uintptr_t)x86_kernel_stack_guard);
	unmap_low((uintptr_t)x86_user_stack_guard);
	uint64_t cr3;
	__asm__ volatile("mov %%cr3, %0; mov %0, %%cr3" : "=r"(cr3) : : "memory");
}

/* The ring region from the cmdline (plat_mem.c: the arch-neutral checks first). */
bool plat_ring_region(uint64_t *gpa, uint64_t *bytes)
{
	if (!plat_ring_param(gpa, bytes))
		return false;
	uint64_t end = *gpa + *bytes;
	if (end > MAP_END)
		plat_fail_param("ring_bytes", "ring must end below 4 GiB");
	if (*gpa < (uintptr_t)x86_image_end && end > (uintptr_t)x86_image_start)
		plat_fail_param("ring_gpa", "overlaps the guest image");
	const struct x86_bootinfo *bi = &x86_boot_info;
	bool in_ram = bi->nram == 0;                    /* no memory map: trust the host */
	for (unsigned i = 0; i < bi->nram; i++)
		if (*gpa >= bi->ram[i].base && end <= bi->ram[i].base + bi->ram[i].size)
			in_ram = true;
	if (!in_ram)
		plat_fail_param("ring_gpa", "ring is not inside guest RAM");
	return true;
}

void plat_mem_init(void)
{
	uint64_t rg = 0, rn = 0;
	if (plat_ring_region(&rg, &rn))
		plat_mem_exclude(rg, rn);
	const struct x86_bootinfo *bi = &x86_boot_info;
	for (unsigned i = 0; i < bi->nram; i++) {
		uint64_t lo = bi->ram[i].base, hi = lo + bi->ram[i].size;
		if (lo < (uintptr_t)x86_image_end)
			lo = (uintptr_t)x86_image_end;
		if (hi > MAP_END)
			hi = MAP_END;
		if (lo < hi)
			plat_mem_add(lo, hi);
	}
}
