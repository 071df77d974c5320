/* uart8250.c - 8250/16550 console on COM1 (0x3f8), polled, no interrupts.
 * Writes go out 16 bytes per THR-empty with `rep outsb`, one VM exit per chunk under
 * KVM. A missing UART (LSR reads 0xff, e.g. a Xen PVH domU) swallows the output.
 * xt_console_write is one line (guests/lib formats a line and writes it at once) and
 * several vCPUs may call it: a spinlock held around the write keeps lines whole. It is
 * taken where the caller runs (ring 3 for xt_main and started vCPUs: spinning there is
 * native on kvm-pvm, not emulated), with `pause`, for at most 2^35 TSC ticks (~10 s: a
 * vCPU stopped while holding it must not silence the rest for good); a vCPU that
 * already holds it (a fault report from inside a write) writes without waiting.
 * Caveat: the lock is not fair; four vCPUs printing flat out under kvm-pvm kept one
 * waiting over 2^31 ticks (it then wrote into another's line), hence the long bound.
 * Benches print from vCPU 0 only, outside measured windows. */
#include "platform.h"
#include "x86.h"

#define COM1 0x3f8
#define LSR  (COM1 + 5)
#define LSR_THRE 0x20
#define LSR_TEMT 0x40

void x86_uart_init(void)
{
	outb(COM1 + 1, 0x00);    /* no interrupts */
	outb(COM1 + 3, 0x80);    /* DLAB */
	outb(COM1 + 0, 0x01);    /* 115200 baud */
	outb(COM1 + 1, 0x00);
	outb(COM1 + 3, 0x03);    /* 8N1 */
	outb(COM1 + 2, 0x07);    /* FIFO on and cleared */
	outb(COM1 + 4, 0x03);    /* DTR, RTS */
}

static bool wait_lsr(uint8_t bit)
{
	for (unsigned i = 0; i < 1000000; i++) {
		uint8_t lsr = inb(LSR);
		if (lsr == 0xff)
			return false;
		if (lsr & bit)
			return true;
	}
	return false;
}

void x86_uart_write(const char *s, size_t n)
{
	while (n) {
		size_t chunk = n < 16 ? n : 16;
		if (!wait_lsr(LSR_THRE))
			return;
		__asm__ volatile("rep outsb" : "+S"(s), "+c"(chunk) : "d"(COM1) : "memory");
		n -= n < 16 ? n : 16;
	}
}

void x86_uart_flush(void)
{
	wait_lsr(LSR_TEMT);
}

static volatile uint32_t console_owner;         /* xt_cpu_index() + 1 of the writer, 0: free */

void xt_console_write(const char *s, size_t n)
{
	uint32_t me = xt_cpu_index() + 1, free = 0;
	bool locked = false;
	if (console_owner != me) {
		uint64_t t0 = rdtsc();
		while (!(locked = __atomic_compare_exchange_n(&console_owner, &free, me, false,
							      __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) &&
		       rdtsc() - t0 < (1ull << 35)) {
			free = 0;
			__asm__ volatile("pause");
		}
	}
	if (x86_cpl())
		x86_syscall(X86_SYS_WRITE, (long)s, (long)n, 0);
	else
		x86_console_out(s, n);
	if (locked)
		__atomic_store_n(&console_owner, 0, __ATOMIC_RELEASE);
}
