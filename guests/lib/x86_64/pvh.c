/* pvh.c - PVH boot information (Xen's hvm_start_info; QEMU -M microvm, Xen PVH). */
#include "x86.h"

#define HVM_START_MAGIC 0x336ec578

struct hvm_start_info {
	uint32_t magic, version, flags, nr_modules;
	uint64_t modlist_paddr, cmdline_paddr, rsdp_paddr;
	uint64_t memmap_paddr;      /* version >= 1 */
	uint32_t memmap_entries, reserved;
};
struct hvm_memmap_entry {
	uint64_t addr, size;
	uint32_t type, reserved;
};

void x86_pvh_parse(uint32_t addr)
{
	const struct hvm_start_info *si = (const void *)(uintptr_t)addr;
	x86_boot_info.platform = x86_xen_base() ? "xen" : x86_pci_present() ? "pc" : "microvm";
	if (si->magic != HVM_START_MAGIC)
		return;
	x86_boot_info.rsdp = si->rsdp_paddr;
	if (si->cmdline_paddr)
		plat_cmdline_set((const char *)(uintptr_t)si->cmdline_paddr, (size_t)-1);
	if (si->version < 1 || !si->memmap_paddr)
		return;
	const struct hvm_memmap_entry *e = (const void *)(uintptr_t)si->memmap_paddr;
	for (uint32_t i = 0; i < si->memmap_entries && x86_boot_info.nram < X86_MAX_MEMMAP; i++)
		if (e[i].type == 1)
			x86_boot_info.ram[x86_boot_info.nram++] = (struct x86_mem_range){ e[i].addr, e[i].size };
}
