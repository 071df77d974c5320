/* console.c - the console behind xt_console_write(): the PV console on Xen guests
 * (the one xenconsoled logs), else the DTB's PL011/SBSA UART. From EL0 it is reached
 * through `svc #1`. Any vCPU may write; one write (one xt_console_write call) is
 * atomic, lines made of several calls may interleave with another vCPU's. */
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

/* One write at a time across vCPUs: a spinlock (exclusive load/store: armv8.0 has no
 * LSE, and exclusives need the MMU on with Normal memory, so it is taken only once
 * smp.c has started a secondary). owner = vCPU index + 1. A vCPU that already holds it
 * (a fault reported in the middle of a write) goes on without; a wait longer than ~1 s
 * of the counter (a holder that faulted, or stopped) gives up and writes unlocked. */
static uint32_t owner;

static bool lock(void)
{
	uint32_t me = arm64_cpu() + 1, free;
	uint64_t limit = 0;

	if (!arm64_smp_on || __atomic_load_n(&owner, __ATOMIC_RELAXED) == me)
		return false;
	for (;;) {
		free = 0;
		if (__atomic_compare_exchange_n(&owner, &free, me, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return true;
		uint64_t now = read_sysreg(cntvct_el0);
		if (!limit)
			limit = now + (read_sysreg(cntfrq_el0) & 0xffffffffu);
		else if (now > limit)
			return false;
		__asm__ volatile("yield");
	}
}

static void unlock(bool held)
{
	if (held)
		__atomic_store_n(&owner, 0, __ATOMIC_RELEASE);
}

void arm64_console_write(const char *s, size_t n)
{
	bool held = lock();
	if (xen_console)
		plat_xencons_write(s, n);
	else
		pl011_write(s, n);
	unlock(held);
}

void arm64_console_flush(void)
{
	bool held = lock();
	if (xen_console)
		plat_xencons_flush();
	else
		pl011_flush();
	unlock(held);
}

void xt_console_write(const char *s, size_t n)
{
	if (arm64_at_el0)
		arm64_svc(ARM64_SYS_WRITE, (long)s, (long)n, 0);
	else
		arm64_console_write(s, n);
}
