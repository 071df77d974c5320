/* xencons.c - the Xen PV console of a PVH domU (what xenconsoled logs to
 * /var/log/xen/console/guest-<name>.log): the ring page and event channel come from
 * HVM_PARAM_CONSOLE_PFN/EVTCHN, output is a 2048-byte ring, the backend is kicked with
 * EVTCHNOP_send. Polled; a write waits (bounded, ~1 s) for ring space. The page lies in
 * Xen's special pages below 4 GiB (0xfeff8000.. on x86), inside the identity map.
 * x86_console_out() is the platform's console: this one on Xen, else COM1. */
#include "platform.h"
#include "x86.h"

#define HVM_PARAM_CONSOLE_PFN    17
#define HVM_PARAM_CONSOLE_EVTCHN 18

struct xencons_interface {
	char in[1024];
	char out[2048];
	uint32_t in_cons, in_prod, out_cons, out_prod;
};

static volatile struct xencons_interface *ring;
static uint32_t port;
static uint64_t wait_ticks;

bool x86_xencons_init(void)
{
	uint64_t pfn, evtchn;
	if (!x86_xen_init() || !x86_xen_get_param(HVM_PARAM_CONSOLE_PFN, &pfn) ||
	    !x86_xen_get_param(HVM_PARAM_CONSOLE_EVTCHN, &evtchn) || !pfn || pfn >= (1ull << 20))
		return false;
	port = (uint32_t)evtchn;
	ring = (volatile struct xencons_interface *)(uintptr_t)(pfn << 12);
	wait_ticks = x86_xen_tsc_hz();
	if (!wait_ticks)
		wait_ticks = 3000000000ull;
	return true;
}

static bool wait_space(uint32_t prod)
{
	uint64_t t0 = rdtsc();
	while (prod - ring->out_cons >= sizeof ring->out) {
		x86_xen_notify(port);
		if (rdtsc() - t0 > wait_ticks)
			return false;
		__asm__ volatile("pause");
	}
	return true;
}

static void xencons_write(const char *s, size_t n)
{
	uint32_t prod = ring->out_prod;
	for (size_t i = 0; i < n; i++) {
		if (prod - ring->out_cons >= sizeof ring->out) {
			__asm__ volatile("" : : : "memory");    /* x86: stores are ordered */
			ring->out_prod = prod;
			if (!wait_space(prod))
				return;
		}
		ring->out[prod++ & (sizeof ring->out - 1)] = s[i];
	}
	__asm__ volatile("" : : : "memory");
	ring->out_prod = prod;
	x86_xen_notify(port);
}

void x86_console_out(const char *s, size_t n)
{
	if (ring)
		xencons_write(s, n);
	else
		x86_uart_write(s, n);
}

void x86_console_flush(void)
{
	uint64_t t0 = rdtsc();
	if (!ring) {
		x86_uart_flush();
		return;
	}
	while (ring->out_cons != ring->out_prod && rdtsc() - t0 < wait_ticks) {
		x86_xen_notify(port);
		__asm__ volatile("pause");
	}
}
