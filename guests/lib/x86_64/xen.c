/* xen.c - running as a Xen PVH domU: detection (CPUID leaves 0x40000000 + 0x100*k),
 * the hypercall page (CPUID base+2 names the MSR; Xen fills the page we hand it with
 * vmcall/vmmcall stubs, 32 bytes per hypercall; HVM parameters and event channel kicks
 * use it from plat/plat_xen.c),
 * SCHEDOP_shutdown and the TSC frequency Xen gives the guest (CPUID base+3, sub-leaf 0,
 * ECX in kHz). Ring 0 only, like every other privileged part of the platform. */
#include "x86.h"

#define HYPERVISOR_sched_op         29
#define SCHEDOP_shutdown            2
#define SHUTDOWN_poweroff           0

static uint32_t xen_base;                       /* CPUID base leaf, 0 when not on Xen */
static char hypercall_page[4096] __attribute__((aligned(4096)));
static bool page_ready;

uint32_t x86_xen_base(void)
{
	static bool probed;
	if (!probed) {
		probed = true;
		for (uint32_t base = 0x40000000; base <= 0x40010000; base += 0x100) {  /* +0x100: Viridian first */
			uint32_t r[4];
			cpuid(base, 0, r);
			if (r[1] == 0x566e6558 && r[2] == 0x65584d4d && r[3] == 0x4d4d566e &&   /* "XenVMMXenVMM" */
			    r[0] >= base + 2) {
				xen_base = base;
				break;
			}
		}
	}
	return xen_base;
}

bool x86_xen_init(void)
{
	uint32_t r[4];
	if (page_ready)
		return true;
	if (!x86_xen_base())
		return false;
	cpuid(xen_base + 2, 0, r);                      /* eax: pages, ebx: MSR */
	if (r[0] < 1)
		return false;
	wrmsr(r[1], (uintptr_t)hypercall_page);
	page_ready = true;
	return true;
}

long x86_xen_hypercall(unsigned nr, long a0, long a1)
{
	register long rdi __asm__("rdi") = a0;
	register long rsi __asm__("rsi") = a1;
	long ret;
	if (!page_ready)
		return -38;                             /* -ENOSYS */
	__asm__ volatile("call *%[entry]"
			 : "=a"(ret), "+r"(rdi), "+r"(rsi)
			 : [entry] "r"(hypercall_page + nr * 32)
			 : "memory", "rcx", "rdx", "r8", "r9", "r10", "r11");
	return ret;
}

void x86_xen_shutdown(void)
{
	unsigned reason = SHUTDOWN_poweroff;
	x86_xen_hypercall(HYPERVISOR_sched_op, SCHEDOP_shutdown, (long)&reason);
}

uint64_t x86_xen_tsc_hz(void)
{
	uint32_t r[4];
	if (!x86_xen_base())
		return 0;
	cpuid(xen_base, 0, r);
	if (r[0] < xen_base + 3)
		return 0;
	cpuid(xen_base + 3, 0, r);                      /* ecx: guest TSC kHz */
	return (uint64_t)r[2] * 1000;
}
