/* pl011.c - PL011 UART console (QEMU virt at 0x09000000; also Xen's vpl011, an SBSA
 * UART: same data and flag registers, no control registers), polled, no interrupts.
 * full=true (a real PL011) enables the UART and its FIFOs at 8N1 without touching the
 * baud rate (QEMU ignores it; firmware set it on hardware). */
#include "arm64.h"

#define UARTDR   0x00
#define UARTFR   0x18
#define UARTLCR_H 0x2c
#define UARTCR   0x30
#define UARTIMSC 0x38
#define FR_BUSY  (1u << 3)
#define FR_TXFF  (1u << 5)

static uint64_t base;

void pl011_init(uint64_t b, bool full)
{
	base = b;
	if (!full)
		return;
	mmio_w32(base + UARTIMSC, 0);
	mmio_w32(base + UARTLCR_H, 0x70);              /* 8 bits, FIFOs on */
	mmio_w32(base + UARTCR, 0x301);                /* UARTEN, TXE, RXE */
}

void pl011_write(const char *s, size_t n)
{
	if (!base)
		return;
	for (size_t i = 0; i < n; i++) {
		for (unsigned spin = 0; mmio_r32(base + UARTFR) & FR_TXFF; spin++)
			if (spin > 10000000)
				return;                        /* a stuck UART must not hang the run */
		mmio_w32(base + UARTDR, (uint8_t)s[i]);
	}
}

void pl011_flush(void)
{
	for (unsigned spin = 0; base && (mmio_r32(base + UARTFR) & FR_BUSY) && spin < 10000000; spin++)
		;
}
