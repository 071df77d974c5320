/* psci.c - PSCI calls through the conduit the DTB's /psci node names (HVC on QEMU virt
 * without EL2 and on Xen, SMC with virtualization=on): SYSTEM_OFF ends the VM (QEMU
 * then exits with status 0 whatever the run's status: XT END is authoritative), CPU_ON
 * starts secondary vCPUs (smp.c). */
#include "platform.h"
#include "arm64.h"

#define PSCI_SYSTEM_OFF 0x84000008

/* One PSCI call (SMC Calling Convention: function id in x0, arguments in x1..x3, result
 * in x0; x0..x17 may be clobbered). */
long arm64_psci_call(uint64_t fn, uint64_t a0, uint64_t a1, uint64_t a2)
{
	register uint64_t x0 __asm__("x0") = fn, x1 __asm__("x1") = a0, x2 __asm__("x2") = a1,
		 x3 __asm__("x3") = a2;
	if (arm64_board.psci == PSCI_HVC)
		__asm__ volatile("hvc #0" : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3) : : "x4", "x5", "x6", "x7",
				 "x8", "x9", "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17", "memory");
	else if (arm64_board.psci == PSCI_SMC)
		__asm__ volatile("smc #0" : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3) : : "x4", "x5", "x6", "x7",
				 "x8", "x9", "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17", "memory");
	else
		return -1;                      /* PSCI NOT_SUPPORTED */
	return (long)x0;
}

void arm64_psci_off(void)
{
	arm64_psci_call(PSCI_SYSTEM_OFF, 0, 0, 0);
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
