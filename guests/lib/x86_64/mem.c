/* mem.c - guard pages, the sample ring region and the xt_alloc bump allocator.
 *
 * Ring convention: the host backs all guest RAM with a shared file
 * (-object memory-backend-file,...,share=on -machine memory-backend=mem) and passes
 * ring_gpa=0x... ring_bytes=N; guest-physical address = file offset in low RAM.
 * Suggested default: ring_gpa=0x1000000 (16 MiB), above the image (which must end
 * below 16 MiB, checked by link.ld). The region must lie in usable RAM below 4 GiB,
 * clear of the image, 64-byte aligned; xt_alloc never hands it out.
 *
 * xt_alloc: page-aligned, zeroed, never freed, from usable RAM (boot memory map) above
 * the image and below 4 GiB (the identity map's end). */
#include "platform.h"
#include "x86.h"

#define PAGE 4096ull
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

/* The ring region from the cmdline: false when ring_gpa is absent; a bad one ends the
 * run with XT END status=badparam. */
static bool ring_region(uint64_t *gpa, uint64_t *bytes)
{
	if (!x86_param_u64("ring_gpa", gpa))
		return false;
	if (!x86_param_u64("ring_bytes", bytes))
		x86_fail_param("ring_bytes", "required with ring_gpa");
	uint64_t end = *gpa + *bytes;
	if (*bytes < 64 + 32 || end < *gpa || end > MAP_END)
		x86_fail_param("ring_bytes", "ring must hold a header and a slot and end below 4 GiB");
	if (*gpa & 63)
		x86_fail_param("ring_gpa", "must be 64-byte aligned");
	if (*gpa < (uintptr_t)x86_image_end && end > (uintptr_t)x86_image_start)
		x86_fail_param("ring_gpa", "overlaps the guest image");
	const struct x86_bootinfo *bi = &x86_boot_info;
	bool in_ram = bi->nram == 0;                    /* no memory map: trust the host */
	for (unsigned i = 0; i < bi->nram; i++)
		if (*gpa >= bi->ram[i].base && end <= bi->ram[i].base + bi->ram[i].size)
			in_ram = true;
	if (!in_ram)
		x86_fail_param("ring_gpa", "ring is not inside guest RAM");
	return true;
}

void *xt_ring_memory(size_t *bytes)
{
	uint64_t gpa, n;
	if (!ring_region(&gpa, &n))
		return NULL;
	if (bytes)
		*bytes = n;
	return (void *)(uintptr_t)gpa;
}

static struct x86_mem_range pool[2 * X86_MAX_MEMMAP];
static unsigned npool;
static bool pool_ready;

static void pool_add(uint64_t lo, uint64_t hi)
{
	lo = (lo + PAGE - 1) & ~(PAGE - 1);
	hi &= ~(PAGE - 1);
	if (hi > lo && npool < sizeof pool / sizeof pool[0])
		pool[npool++] = (struct x86_mem_range){ lo, hi - lo };
}

static void pool_init(void)
{
	uint64_t rg = 0, rn = 0;
	bool ring = ring_region(&rg, &rn);
	const struct x86_bootinfo *bi = &x86_boot_info;
	for (unsigned i = 0; i < bi->nram; i++) {
		uint64_t lo = bi->ram[i].base, hi = lo + bi->ram[i].size;
		if (lo < (uintptr_t)x86_image_end)
			lo = (uintptr_t)x86_image_end;
		if (hi > MAP_END)
			hi = MAP_END;
		if (lo >= hi)
			continue;
		if (ring && rg < hi && rg + rn > lo) {
			pool_add(lo, rg);
			pool_add(rg + rn, hi);
		} else {
			pool_add(lo, hi);
		}
	}
	pool_ready = true;
}

void *xt_alloc(size_t bytes)
{
	if (!pool_ready)
		pool_init();
	uint64_t n = ((uint64_t)bytes + PAGE - 1) & ~(PAGE - 1);
	if (!n)
		n = PAGE;
	for (unsigned i = 0; i < npool; i++) {         /* first fit */
		if (pool[i].size >= n) {
			void *p = (void *)(uintptr_t)pool[i].base;
			pool[i].base += n;
			pool[i].size -= n;
			__builtin_memset(p, 0, n);
			return p;
		}
	}
	return NULL;
}
