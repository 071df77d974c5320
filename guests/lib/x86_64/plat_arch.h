/* plat_arch.h - x86-64's inline hooks for guests/lib/plat (see plat.h). */
#pragma once
#include "x86.h"

static inline uint64_t plat_ticks(void) { return rdtsc(); }
static inline void plat_wmb(void) { __asm__ volatile("" : : : "memory"); }  /* stores are ordered */
static inline void plat_relax(void) { __asm__ volatile("pause"); }
static inline long plat_xen_hypercall(unsigned nr, long a0, long a1)
{
	return x86_xen_hypercall(nr, a0, a1);
}
