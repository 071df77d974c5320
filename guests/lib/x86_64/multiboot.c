/* multiboot.c - Multiboot 1 boot information (QEMU -M pc -kernel). */
#include "x86.h"

struct mb_info {
	uint32_t flags, mem_lower, mem_upper, boot_device, cmdline;
	uint32_t mods_count, mods_addr, syms[4];
	uint32_t mmap_length, mmap_addr;
};
struct mb_mmap {
	uint32_t size;
	uint64_t addr, len;
	uint32_t type;
} __attribute__((packed));

/* Multiboot loaders (QEMU, GRUB) put the kernel's path first: drop a first word
 * without '='. */
static const char *skip_path(const char *s)
{
	const char *p = s;
	while (*p && *p != ' ' && *p != '=')
		p++;
	if (*p == '=')
		return s;
	while (*p == ' ')
		p++;
	return p;
}

void x86_multiboot_parse(uint32_t addr)
{
	const struct mb_info *mb = (const void *)(uintptr_t)addr;
	struct x86_bootinfo *bi = &x86_boot_info;
	bi->platform = x86_pci_present() ? "pc" : "microvm";   /* microvm takes this path too */
	if (mb->flags & (1u << 2))
		plat_cmdline_set(skip_path((const char *)(uintptr_t)mb->cmdline), (size_t)-1);
	if (mb->flags & (1u << 6)) {
		uintptr_t p = mb->mmap_addr, end = p + mb->mmap_length;
		while (p < end && bi->nram < X86_MAX_MEMMAP) {
			const struct mb_mmap *e = (const void *)p;
			if (e->type == 1)
				bi->ram[bi->nram++] = (struct x86_mem_range){ e->addr, e->len };
			p += e->size + 4;
		}
	} else if (mb->flags & 1u) {
		bi->ram[bi->nram++] = (struct x86_mem_range){ 0x100000, (uint64_t)mb->mem_upper << 10 };
	}
}
