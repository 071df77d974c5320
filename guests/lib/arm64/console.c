/* console.c - the console behind xt_console_write(): the PV console on Xen guests
 * (the one xenconsoled logs), else the DTB's PL011/SBSA UART. From EL0 it is reached
 * through `svc #1`. */
#include "platform.h"
#include "arm64.h"

static bool xen_console;

/* With the MMU still off (Device memory): the UART, so early faults can be reported. */
void arm64_console_init(void)
{
	const struct arm64_board *b = &arm64_board;
	if (b->uart != UART_NONE)
		pl011_init(b->uart_base, b->uart == UART_PL011);
}

/* With the MMU on: on Xen, switch to the PV console (its page must be cacheable). */
void arm64_console_upgrade(void)
{
	if (arm64_board.xen && arm64_xencons_init())
		xen_console = true;
}

void arm64_console_write(const char *s, size_t n)
{
	if (xen_console)
		plat_xencons_write(s, n);
	else
		pl011_write(s, n);
}

void arm64_console_flush(void)
{
	if (xen_console)
		plat_xencons_flush();
	else
		pl011_flush();
}

void xt_console_write(const char *s, size_t n)
{
	if (arm64_at_el0)
		arm64_svc(ARM64_SYS_WRITE, (long)s, (long)n, 0);
	else
		arm64_console_write(s, n);
}
