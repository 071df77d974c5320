/* trap.c - xt_trap (platform.h) for the arm64 probe guest: operations that make the
 * hypervisor work, for vmexit_storm. All three enter EL1 through the `svc #1` gate
 * (HVC is undefined at EL0 and the devices are mapped EL1-only). Kinds (default first):
 *   hvc   PSCI_VERSION through the PSCI conduit the DTB names (HVC on QEMU virt and Xen,
 *         SMC with virtualization=on): a hypercall handled by KVM / Xen (QEMU's PSCI
 *         emulation under TCG). Unavailable without PSCI.
 *   mmio  a read of GICD_TYPER (distributor + 4, no side effects): emulated in the
 *         kernel by KVM's vGIC, by Xen's vGIC, by QEMU under TCG. Unavailable without a
 *         GIC in the DTB.
 *   gate  the EL0 -> EL1 -> EL0 round trip alone: no exit under KVM/Xen, the baseline
 *         to subtract from the two others.
 */
#include "plat_arch.h"

enum { HVC, MMIO, GATE, NKINDS };
#define PSCI_VERSION 0x84000000

const char plat_trap_names[] = "hvc,mmio,gate";        /* in enum order (plat_trap.c) */

bool plat_trap_available(int kind)
{
	if (kind == HVC)
		return arm64_board.psci != PSCI_NONE;
	if (kind == MMIO)
		return arm64_board.gic != GIC_NONE;
	return kind < NKINDS;
}

long arm64_trap_el1(long kind)
{
	register uint64_t x0 __asm__("x0") = PSCI_VERSION;

	if (kind == HVC && arm64_board.psci == PSCI_HVC)
		__asm__ volatile("hvc #0" : "+r"(x0) : : "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8",
				 "x9", "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17", "memory");
	else if (kind == HVC && arm64_board.psci == PSCI_SMC)
		__asm__ volatile("smc #0" : "+r"(x0) : : "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8",
				 "x9", "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17", "memory");
	else if (kind == MMIO && arm64_board.gic != GIC_NONE)
		return (long)mmio_r32(arm64_board.gicd + 4);
	return (long)x0;
}

void xt_trap(int kind)
{
	if (arm64_at_el0)
		arm64_svc(ARM64_SYS_TRAP, kind, 0, 0);
	else
		arm64_trap_el1(kind);
}
