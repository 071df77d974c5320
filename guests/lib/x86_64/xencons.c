/* xencons.c - x86's part of the Xen PV console of a PVH domU (the ring protocol and
 * the hypercalls are in plat/plat_xen.c): a write waits (bounded, ~1 s of TSC) for ring
 * space. The page lies in
 * Xen's special pages below 4 GiB (0xfeff8000.. on x86), inside the identity map.
 * x86_console_out() is the platform's console: this one on Xen, else COM1. */
#include "plat_arch.h"

bool plat_xencons_map(uint64_t pfn)
{
	return pfn < (1ull << 20);                      /* inside the identity map */
}

bool x86_xencons_init(void)
{
	if (!x86_xen_init())
		return false;
	uint64_t hz = x86_xen_tsc_hz();
	return plat_xencons_init(hz ? hz : 3000000000ull);
}

void x86_console_out(const char *s, size_t n)
{
	if (plat_xencons_active())
		plat_xencons_write(s, n);
	else
		x86_uart_write(s, n);
}

void x86_console_flush(void)
{
	if (plat_xencons_active())
		plat_xencons_flush();
	else
		x86_uart_flush();
}
