/* plat_xen.c - the arch-neutral Xen domU pieces: HVM parameters (HVMOP_get_param),
 * event channel kicks (EVTCHNOP_send) and the PV console: a shared page with a ring of
 * 2048 output bytes, the backend kicked after each write. Polled; a write waits
 * (bounded, wait_ticks) for ring space. Tested under Debian's Xen 4.17 in the Xen lab
 * (tests/integration/test_xen.py, test_xen_x86_64.py). */
#include "plat_arch.h"

#define HYPERVISOR_event_channel_op 32
#define HYPERVISOR_hvm_op           34
#define HVMOP_get_param             1
#define EVTCHNOP_send               4
#define HVM_PARAM_CONSOLE_PFN       17
#define HVM_PARAM_CONSOLE_EVTCHN    18
#define DOMID_SELF                  0x7ff0

struct xen_hvm_param { uint16_t domid, pad; uint32_t index; uint64_t value; };
struct xencons_interface {
	char in[1024];
	char out[2048];
	uint32_t in_cons, in_prod, out_cons, out_prod;
};

static volatile struct xencons_interface *ring;
static uint32_t port;
static uint64_t wait_ticks;

bool plat_xen_get_param(uint32_t index, uint64_t *value)
{
	struct xen_hvm_param p = { .domid = DOMID_SELF, .index = index };
	if (plat_xen_hypercall(HYPERVISOR_hvm_op, HVMOP_get_param, (long)&p) != 0)
		return false;
	*value = p.value;
	return true;
}

void plat_xen_notify(uint32_t evtchn)
{
	uint32_t send = evtchn;
	plat_xen_hypercall(HYPERVISOR_event_channel_op, EVTCHNOP_send, (long)&send);
}

bool plat_xencons_init(uint64_t ticks)
{
	uint64_t pfn, evtchn;
	if (!plat_xen_get_param(HVM_PARAM_CONSOLE_PFN, &pfn) ||
	    !plat_xen_get_param(HVM_PARAM_CONSOLE_EVTCHN, &evtchn) || !pfn || !plat_xencons_map(pfn))
		return false;
	port = (uint32_t)evtchn;
	wait_ticks = ticks;
	ring = (volatile struct xencons_interface *)(uintptr_t)(pfn << 12);
	return true;
}

bool plat_xencons_active(void)
{
	return ring != NULL;
}

/* Waits up to wait_ticks for ring space; false on timeout. */
static bool wait_space(uint32_t prod)
{
	uint64_t t0 = plat_ticks();
	while (prod - ring->out_cons >= sizeof ring->out) {
		plat_xen_notify(port);
		if (plat_ticks() - t0 > wait_ticks)
			return false;
		plat_relax();
	}
	return true;
}

void plat_xencons_write(const char *s, size_t n)
{
	uint32_t prod = ring->out_prod;
	for (size_t i = 0; i < n; i++) {
		if (prod - ring->out_cons >= sizeof ring->out) {
			plat_wmb();
			ring->out_prod = prod;
			if (!wait_space(prod))
				return;
		}
		ring->out[prod++ & (sizeof ring->out - 1)] = s[i];
	}
	plat_wmb();
	ring->out_prod = prod;
	plat_xen_notify(port);
}

void plat_xencons_flush(void)
{
	uint64_t t0 = plat_ticks();
	while (ring && ring->out_cons != ring->out_prod && plat_ticks() - t0 < wait_ticks) {
		plat_xen_notify(port);
		plat_relax();
	}
}
