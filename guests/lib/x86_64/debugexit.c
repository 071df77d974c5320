/* debugexit.c - end the VM: on Xen, SCHEDOP_shutdown (poweroff; XT END carries the
 * status); else QEMU's isa-debug-exit at port 0xf4 (QEMU then exits with status
 * (code << 1) | 1); on a microvm without that device (Debian's trimmed
 * qemu-system-x86_64-microvm has none) an ACPI S5 poweroff through the machine's
 * generic event device (QEMU exits with 0; XT END carries the status); without any of
 * these, halt forever with interrupts off. */
#include "platform.h"
#include "x86.h"

/* QEMU's microvm: GED registers (hw/i386/microvm.h GED_MMIO_BASE_REGS) and the sleep
 * control value for S5 (hw/acpi/generic_event_device.h: SLP_TYP 5 << 2 | SLP_EN). */
#define MICROVM_GED_SLEEP_CTL 0xfea00200u
#define GED_SLEEP_S5 ((5u << 2) | 0x20u)

static void microvm_poweroff(void)
{
	const char *p = x86_boot_info.platform;
	if (p && p[0] == 'm')    /* "microvm": the only platform with the GED at that address */
		*(volatile uint8_t *)(uintptr_t)MICROVM_GED_SLEEP_CTL = GED_SLEEP_S5;
}


void x86_exit_now(int status)
{
	x86_console_flush();
	if (x86_xen_base() && x86_xen_init())
		x86_xen_shutdown();
	outb(0xf4, (uint8_t)status);
	microvm_poweroff();
	for (;;)
		__asm__ volatile("cli; hlt");
}

void xt_exit(int status)
{
	if (x86_cpl())
		x86_syscall(X86_SYS_EXIT, status, 0, 0);
	x86_exit_now(status);
}
