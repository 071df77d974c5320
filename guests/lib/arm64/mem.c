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
 * xt_alloc (plat_mem.c): from mapped RAM minus the ranges above. */
#include "plat_arch.h"

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

/* The ring region from the cmdline (plat_mem.c: the arch-neutral checks first). */
bool plat_ring_region(uint64_t *gpa, uint64_t *bytes)
{
	const struct arm64_board *b = &arm64_board;
	struct span boot = boot_area();

	if (!plat_ring_param(gpa, bytes))
		return false;
	if (overlaps(*gpa, *bytes, boot.lo, boot.hi - boot.lo))
		plat_fail_param("ring_gpa", "overlaps the guest image or the boot area below it");
	if (b->dtb_ok && overlaps(*gpa, *bytes, b->dtb, b->dtb_size))
		plat_fail_param("ring_gpa", "overlaps the device tree (QEMU writes it at RAM base + min(RAM/2, 128 MiB))");
	for (unsigned i = 0; i < b->nrsv; i++)
		if (overlaps(*gpa, *bytes, b->rsv[i].base, b->rsv[i].size))
			plat_fail_param("ring_gpa", "overlaps reserved memory");
	if (!arm64_ram_mapped(*gpa, *bytes))
		plat_fail_param("ring_gpa", "ring is not inside guest RAM");
	return true;
}

void plat_mem_init(void)
{
	const struct arm64_board *b = &arm64_board;
	struct span boot = boot_area();
	uint64_t rg = 0, rn = 0;

	plat_mem_exclude(boot.lo, boot.hi - boot.lo);
	if (b->dtb_ok)
		plat_mem_exclude(b->dtb, b->dtb_size);
	for (unsigned i = 0; i < b->nrsv; i++)
		plat_mem_exclude(b->rsv[i].base, b->rsv[i].size);
	if (plat_ring_region(&rg, &rn))
		plat_mem_exclude(rg, rn);
	for (unsigned i = 0; i < b->nram; i++)
		if (arm64_ram_mapped(b->ram[i].base, b->ram[i].size))
			plat_mem_add(b->ram[i].base, b->ram[i].base + b->ram[i].size);
}
