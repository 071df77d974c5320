/* plat_mem.c - the sample ring region's arch-neutral checks, xt_ring_memory, and the
 * xt_alloc bump allocator: page-aligned, zeroed, never freed, first fit from the ranges
 * the arch's plat_mem_init adds (minus the exclusions it makes: image, ring...). */
#include "plat_arch.h"

#define PAGE 4096ull
#define MAX_POOL 64
#define MAX_EXCL 24

struct span { uint64_t lo, hi; };

static struct span pool[MAX_POOL], excl[MAX_EXCL];
static unsigned npool, nexcl;
static bool pool_ready;

bool plat_ring_param(uint64_t *gpa, uint64_t *bytes)
{
	if (!plat_param_u64("ring_gpa", gpa))
		return false;
	if (!plat_param_u64("ring_bytes", bytes))
		plat_fail_param("ring_bytes", "required with ring_gpa");
	if (*bytes < 64 + 32 || *gpa + *bytes < *gpa)
		plat_fail_param("ring_bytes", "ring must hold a header and a slot");
	if (*gpa & 63)
		plat_fail_param("ring_gpa", "must be 64-byte aligned");
	return true;
}

void *xt_ring_memory(size_t *bytes)
{
	uint64_t gpa, n;
	if (!plat_ring_region(&gpa, &n))
		return NULL;
	if (bytes)
		*bytes = n;
	return (void *)(uintptr_t)gpa;
}

static void pool_add(uint64_t lo, uint64_t hi)
{
	lo = (lo + PAGE - 1) & ~(PAGE - 1);
	hi &= ~(PAGE - 1);
	if (hi > lo && npool < MAX_POOL)
		pool[npool++] = (struct span){ lo, hi };
}

/* Adds [lo, hi) minus the exclusions from index `from` on. */
static void add_free(uint64_t lo, uint64_t hi, unsigned from)
{
	for (unsigned i = from; i < nexcl; i++) {
		if (excl[i].lo < hi && excl[i].hi > lo) {
			if (excl[i].lo > lo)
				add_free(lo, excl[i].lo, i + 1);
			if (excl[i].hi < hi)
				add_free(excl[i].hi, hi, i + 1);
			return;
		}
	}
	pool_add(lo, hi);
}

void plat_mem_add(uint64_t lo, uint64_t hi)
{
	add_free(lo, hi, 0);
}

void plat_mem_exclude(uint64_t base, uint64_t size)
{
	if (size && nexcl < MAX_EXCL)
		excl[nexcl++] = (struct span){ base, base + size };
}

void *xt_alloc(size_t bytes)
{
	if (!pool_ready) {
		plat_mem_init();
		pool_ready = true;
	}
	uint64_t n = ((uint64_t)bytes + PAGE - 1) & ~(PAGE - 1);
	if (!n)
		n = PAGE;
	for (unsigned i = 0; i < npool; i++) {         /* first fit */
		if (pool[i].hi - pool[i].lo >= n) {
			void *p = (void *)(uintptr_t)pool[i].lo;
			pool[i].lo += n;
			__builtin_memset(p, 0, n);
			return p;
		}
	}
	return NULL;
}
