/* tsc.c - the counter: TSC, read with lfence on both sides. Its frequency comes from
 * freq_hz= on the cmdline, else Xen's time leaf (base+3, on Xen), else CPUID 0x15 (crystal clock ratio), else the hypervisor
 * timing leaf 0x40000010 (KVM/VMware, QEMU -cpu ...,+invtsc,+vmware-cpuid-freq), else 0
 * (the host must then pass freq_hz=; self-calibration proved wrong on microvm). */
#include "platform.h"
#include "x86.h"

uint64_t xt_counter(void)
{
	uint32_t lo, hi;
	__asm__ volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

static uint64_t detect_hz(void)
{
	uint64_t hz;
	uint32_t r[4];
	if (plat_param_u64("freq_hz", &hz))
		return hz;
	if ((hz = x86_xen_tsc_hz()))                    /* Xen's time leaf: the guest TSC rate */
		return hz;
	cpuid(0, 0, r);
	if (r[0] >= 0x15) {
		cpuid(0x15, 0, r);                      /* eax denominator, ebx numerator, ecx Hz */
		if (r[0] && r[1] && r[2])
			return (uint64_t)r[2] * r[1] / r[0];
	}
	cpuid(1, 0, r);
	if (r[2] & (1u << 31)) {                        /* running under a hypervisor */
		cpuid(0x40000000, 0, r);
		if (r[0] >= 0x40000010) {
			cpuid(0x40000010, 0, r);        /* eax: TSC kHz */
			if (r[0])
				return (uint64_t)r[0] * 1000;
		}
	}
	return 0;
}

uint64_t xt_counter_hz(void)
{
	static uint64_t hz;
	static bool known;
	if (!known) {
		hz = detect_hz();
		known = true;
	}
	return hz;
}
