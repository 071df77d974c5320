/* xencons.c - the Xen PV console of an arm64 domU (what xenconsoled logs to
 * /var/log/xen/console/guest-<name>.log): a shared page found with HVMOP_get_param
 * (HVM_PARAM_CONSOLE_PFN/EVTCHN), written as a ring of 2048 output bytes, the backend
 * kicked with EVTCHNOP_send. Polled; writes wait (bounded) for ring space.
 * Tested under Debian's Xen 4.17 in the Xen lab (tests/integration/test_xen.py). */
#include "arm64.h"

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

static bool get_param(uint32_t index, uint64_t *value)
{
	struct xen_hvm_param p = { .domid = DOMID_SELF, .index = index };
	if (arm64_xen_hypercall(HYPERVISOR_hvm_op, HVMOP_get_param, (long)&p, 0) != 0)
		return false;
	*value = p.value;
	return true;
}

static void notify(void)
{
	uint32_t send = port;
	arm64_xen_hypercall(HYPERVISOR_event_channel_op, EVTCHNOP_send, (long)&send, 0);
}

bool xencons_init(void)
{
	uint64_t pfn, evtchn;
	if (!get_param(HVM_PARAM_CONSOLE_PFN, &pfn) || !get_param(HVM_PARAM_CONSOLE_EVTCHN, &evtchn) ||
	    !pfn || !arm64_map(pfn << 12, 4096, ARM64_MAP_NORMAL_EL1))
		return false;
	port = (uint32_t)evtchn;
	ring = (volatile struct xencons_interface *)(uintptr_t)(pfn << 12);
	return true;
}

/* Waits up to ~1 s of counter time for cond; false on timeout. */
static bool wait_space(uint32_t prod)
{
	uint64_t hz = read_sysreg(cntfrq_el0), t0 = read_sysreg(cntvct_el0);
	while (prod - ring->out_cons >= sizeof ring->out) {
		notify();
		if (read_sysreg(cntvct_el0) - t0 > (hz ? hz : 1000000000))
			return false;
	}
	return true;
}

void xencons_write(const char *s, size_t n)
{
	uint32_t prod = ring->out_prod;
	for (size_t i = 0; i < n; i++) {
		if (prod - ring->out_cons >= sizeof ring->out) {
			__asm__ volatile("dmb ish" : : : "memory");
			ring->out_prod = prod;
			if (!wait_space(prod))
				return;
		}
		ring->out[prod++ & (sizeof ring->out - 1)] = s[i];
	}
	__asm__ volatile("dmb ish" : : : "memory");
	ring->out_prod = prod;
	notify();
}

void xencons_flush(void)
{
	uint64_t hz = read_sysreg(cntfrq_el0), t0 = read_sysreg(cntvct_el0);
	while (ring->out_cons != ring->out_prod && read_sysreg(cntvct_el0) - t0 < (hz ? hz : 1000000000))
		notify();
}
