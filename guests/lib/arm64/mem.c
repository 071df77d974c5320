/* mem.c - the sample ring region and the xt_alloc bump allocator.
 *
 * Ring convention: the host backs all guest RAM with a shared file
 * (-object memory-backend-file,...,share=on -machine memory-backend=mem) and passes
 * ring_gpa=0x... ring_bytes=N; on QEMU virt RAM starts at guest-physical 0x40000000,
 * so file offset = ring_gpa - 0x40000000. Suggested: ring_gpa=0x41000000 (file offset
 * 16 MiB, as on x86 where RAM starts at 0): above the image (which ends below
 * 0x41000000, checked by link.ld) and below QEMU's DTB, which QEMU writes at reset to
 * RAM base + min(RAM/2, 128 MiB) (0x44000000 with 128 MiB), over anything the host
 * put there. The region must be 64-byte aligned, inside RAM the DTB lists, clear of
 * the image and the boot area below it, of the DTB and of reserved memory; xt_alloc
 * never hands it out.
 *
 * xt_alloc: page-aligned, zeroed, never freed, from mapped RAM minus the ranges above. */
#include "platform.h"
#include "arm64.h"

#define PAGE 4096ull
#define MAX_POOL (2 * ARM64_MAX_RANGES + 8)
#define MAX_EXCL (ARM64_MAX_RANGES + 4)

struct span { uint64_t lo, hi; };

static bool overlaps(uint64_t a, uint64_t an, uint64_t b, uint64_t bn)
{
	return a < b + bn && b < a + an;
}

/* The image and everything below it in its RAM range (QEMU's boot stub, rewritten
 * at every reset). */
static struct span boot_area(void)
{
	const struct arm64_board *b = &arm64_board;
	uint64_t img = (uintptr_t)arm64_image_start, end = (uintptr_t)arm64_image_end;
	for (unsigned i = 0; i < b->nram; i++)
		if (img >= b->ram[i].base && img < b->ram[i].base + b->ram[i].size)
			return (struct span){ b->ram[i].base, end };
	return (struct span){ img, end };
}

/* The ring region from the cmdline: false when ring_gpa is absent; a bad one ends the
 * run with XT END status=badparam. */
static bool ring_region(uint64_t *gpa, uint64_t *bytes)
{
	const struct arm64_board *b = &arm64_board;
	struct span boot = boot_area();

	if (!arm64_param_u64("ring_gpa", gpa))
		return false;
	if (!arm64_param_u64("ring_bytes", bytes))
		arm64_fail_param("ring_bytes", "required with ring_gpa");
	uint64_t end = *gpa + *bytes;
	if (*bytes < 64 + 32 || end < *gpa)
		arm64_fail_param("ring_bytes", "ring must hold a header and a slot");
	if (*gpa & 63)
		arm64_fail_param("ring_gpa", "must be 64-byte aligned");
	if (overlaps(*gpa, *bytes, boot.lo, boot.hi - boot.lo))
		arm64_fail_param("ring_gpa", "overlaps the guest image or the boot area below it");
	if (b->dtb_ok && overlaps(*gpa, *bytes, b->dtb, b->dtb_size))
		arm64_fail_param("ring_gpa", "overlaps the device tree (QEMU writes it at RAM base + min(RAM/2, 128 MiB))");
	for (unsigned i = 0; i < b->nrsv; i++)
		if (overlaps(*gpa, *bytes, b->rsv[i].base, b->rsv[i].size))
			arm64_fail_param("ring_gpa", "overlaps reserved memory");
	if (!arm64_ram_mapped(*gpa, *bytes))
		arm64_fail_param("ring_gpa", "ring is not inside guest RAM");
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

static struct span pool[MAX_POOL], excl[MAX_EXCL];
static unsigned npool, nexcl;
static bool pool_ready;

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

static void exclude(uint64_t base, uint64_t size)
{
	if (size && nexcl < MAX_EXCL)
		excl[nexcl++] = (struct span){ base, base + size };
}

static void pool_init(void)
{
	const struct arm64_board *b = &arm64_board;
	struct span boot = boot_area();
	uint64_t rg = 0, rn = 0;

	exclude(boot.lo, boot.hi - boot.lo);
	if (b->dtb_ok)
		exclude(b->dtb, b->dtb_size);
	for (unsigned i = 0; i < b->nrsv; i++)
		exclude(b->rsv[i].base, b->rsv[i].size);
	if (ring_region(&rg, &rn))
		exclude(rg, rn);
	for (unsigned i = 0; i < b->nram; i++)
		if (arm64_ram_mapped(b->ram[i].base, b->ram[i].size))
			add_free(b->ram[i].base, b->ram[i].base + b->ram[i].size, 0);
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
		if (pool[i].hi - pool[i].lo >= n) {
			void *p = (void *)(uintptr_t)pool[i].lo;
			pool[i].lo += n;
			__builtin_memset(p, 0, n);
			return p;
		}
	}
	return NULL;
}
