/* plat_arch.h - arm64's inline hooks for guests/lib/plat (see plat.h). */
#pragma once
#include "arm64.h"

static inline uint64_t plat_ticks(void) { return read_sysreg(cntvct_el0); }
static inline void plat_wmb(void) { __asm__ volatile("dmb ish" : : : "memory"); }
static inline void plat_relax(void) { }
static inline long plat_xen_hypercall(unsigned nr, long a0, long a1)
{
	return arm64_xen_hypercall(nr, a0, a1, 0);
}
