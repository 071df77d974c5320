/* psci.c - ending the VM: PSCI SYSTEM_OFF through the conduit the DTB's /psci node
 * names (HVC on QEMU virt without EL2 and on Xen, SMC with virtualization=on). QEMU
 * then exits with status 0 whatever the run's status: XT END is authoritative. */
#include "platform.h"
#include "arm64.h"

#define PSCI_SYSTEM_OFF 0x84000008

void arm64_psci_off(void)
{
	register uint64_t x0 __asm__("x0") = PSCI_SYSTEM_OFF;
	if (arm64_board.psci == PSCI_HVC)
		__asm__ volatile("hvc #0" : "+r"(x0) : : "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10",
				 "x11", "x12", "x13", "x14", "x15", "x16", "x17", "memory");
	else if (arm64_board.psci == PSCI_SMC)
		__asm__ volatile("smc #0" : "+r"(x0) : : "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10",
				 "x11", "x12", "x13", "x14", "x15", "x16", "x17", "memory");
}

void arm64_exit_now(int status)
{
	(void)status;
	arm64_console_flush();
	arm64_psci_off();
	for (;;)                                /* no PSCI: stop here, IRQs masked */
		__asm__ volatile("msr daifset, #0xf; wfi");
}

void xt_exit(int status)
{
	if (arm64_at_el0)
		arm64_svc(ARM64_SYS_EXIT, status, 0, 0);
	arm64_exit_now(status);
}
