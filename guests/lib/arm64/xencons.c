/* xencons.c - arm64's part of the Xen PV console of a domU (the ring protocol and the
 * hypercalls are in plat/plat_xen.c): the ring page mapped cacheable for EL1, waits
 * bounded by ~1 s of the generic counter. */
#include "plat_arch.h"

bool plat_xencons_map(uint64_t pfn)
{
	return arm64_map(pfn << 12, 4096, ARM64_MAP_NORMAL_EL1);
}

bool arm64_xencons_init(void)
{
	uint64_t hz = read_sysreg(cntfrq_el0);
	return plat_xencons_init(hz ? hz : 1000000000);
}
