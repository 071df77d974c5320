/* debugexit.c - end the VM: on Xen, SCHEDOP_shutdown (poweroff; XT END carries the
 * status); else QEMU's isa-debug-exit at port 0xf4 (QEMU then exits with status
 * (code << 1) | 1); without either, halt forever with interrupts off. */
#include "platform.h"
#include "x86.h"


void x86_exit_now(int status)
{
	x86_console_flush();
	if (x86_xen_base() && x86_xen_init())
		x86_xen_shutdown();
	outb(0xf4, (uint8_t)status);
	for (;;)
		__asm__ volatile("cli; hlt");
}

void xt_exit(int status)
{
	if (x86_cpl())
		x86_syscall(X86_SYS_EXIT, status, 0, 0);
	x86_exit_now(status);
}
