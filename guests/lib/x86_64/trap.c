/* trap.c - xt_trap (platform.h) for the x86-64 probe guest: operations that make the
 * hypervisor work, for vmexit_storm. Kinds (default first):
 *   pio    `outb` to port 0x80 (the legacy POST/delay port: no device state changes),
 *          in ring 0 through the ud2 gate. Exits on VMX/SVM (to QEMU's userspace on
 *          KVM); on kvm-pvm the gate's ring-0 code is emulated as well.
 *   mmio   a 32-bit read of guest-physical 0xe0000000 from ring 3: no RAM and no device
 *          there on microvm and pc (the identity map covers it), so each read is an
 *          MMIO exit to the hypervisor and QEMU's unassigned-memory handler. Refused
 *          when the boot memory map has RAM there. Caveat: on Xen an access to an
 *          unpopulated address may be fatal to the domain; use pio there.
 *   cpuid  CPUID leaf 0 in ring 3: always exits on VMX/SVM; on kvm-pvm ring-3 code runs
 *          natively, so there it is not an exit (see host facts).
 *   gate   the ring-3 -> ring-0 -> ring-3 round trip of `pio` without the port access:
 *          no exit on VMX/SVM (the baseline to subtract from pio), emulated on kvm-pvm.
 */
#include "plat_arch.h"

enum { PIO, MMIO, CPUID, GATE, NKINDS };
#define MMIO_ADDR 0xe0000000ull

const char plat_trap_names[] = "pio,mmio,cpuid,gate";  /* in enum order (plat_trap.c) */

bool plat_trap_available(int kind)
{
	if (kind == MMIO)
		for (unsigned i = 0; i < x86_boot_info.nram; i++)
			if (MMIO_ADDR - x86_boot_info.ram[i].base < x86_boot_info.ram[i].size)
				return false;   /* RAM there: would not exit */
	return kind < NKINDS;
}

long x86_trap_ring0(long kind)
{
	if (kind == PIO)
		outb(0x80, 0);
	return 0;
}

void xt_trap(int kind)
{
	uint32_t r[4];

	switch (kind) {
	case MMIO:
		(void)*(volatile uint32_t *)(uintptr_t)MMIO_ADDR;
		break;
	case CPUID:
		cpuid(0, 0, r);
		break;
	default:                        /* PIO, GATE */
		if (x86_cpl())
			x86_syscall(X86_SYS_TRAP, kind, 0, 0);
		else
			x86_trap_ring0(kind);
	}
}
