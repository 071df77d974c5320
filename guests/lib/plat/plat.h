/* plat.h - the arch-neutral parts of the probe platforms (guests/lib/plat/plat_*.c),
 * compiled by each platform's makefile (mk/x86_64.mk, mk/arm64.mk) with that platform's
 * flags: no SSE on x86 (ring-0 code, emulated on kvm-pvm), -mgeneral-regs-only
 * -mstrict-align on arm64 (exception context, code that runs with the MMU off).
 * Included by the arch headers (x86.h, arm64.h); plat/plat_*.c include plat_arch.h, each
 * arch's inline hooks (plat_ticks, plat_wmb, plat_relax, plat_xen_hypercall). */
#ifndef XT_PLAT_H
#define XT_PLAT_H
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "platform.h"

/* plat_cmdline.c: the platform's copy of the parameter string (at most max bytes of
 * s), set once by the boot code. plat_param_u64: value of key as an unsigned number
 * (decimal or 0x hex), false when absent or not a number. plat_param_str: copies the
 * value of key (at most cap-1 bytes) into buf, false when absent. */
void plat_cmdline_set(const char *s, size_t max);
bool plat_param_u64(const char *key, uint64_t *out);
bool plat_param_str(const char *key, char *buf, size_t cap);

/* plat_report.c: output for the platform's own protocol lines. */
void plat_print(const char *s);
void plat_print_u64(uint64_t v, unsigned base);
void plat_print_run(void);                      /* "run=<id>" */
void plat_fail_param(const char *key, const char *msg) __attribute__((noreturn));

/* plat_mem.c: the sample ring and the xt_alloc pool.
 * plat_ring_param: ring_gpa/ring_bytes from the cmdline with the arch-neutral checks
 * (false when ring_gpa is absent; a bad one ends the run with status=badparam).
 * plat_ring_region (per arch): plat_ring_param plus the arch's own checks; it backs
 * xt_ring_memory. plat_mem_init (per arch): fills the pool with plat_mem_exclude and
 * plat_mem_add (the range minus the exclusions so far, page-aligned) before the first
 * xt_alloc. */
bool plat_ring_param(uint64_t *gpa, uint64_t *bytes);
bool plat_ring_region(uint64_t *gpa, uint64_t *bytes);
void plat_mem_init(void);
void plat_mem_exclude(uint64_t base, uint64_t size);
void plat_mem_add(uint64_t lo, uint64_t hi);

/* plat_trap.c: xt_trap_kinds/xt_trap_kind over the arch's table: plat_trap_names, the
 * kinds comma-separated (default first, index = kind), and plat_trap_available. */
extern const char plat_trap_names[];
bool plat_trap_available(int kind);

/* plat_xen.c: Xen HVM parameters, event channel kicks and the PV console ring (what
 * xenconsoled logs to /var/log/xen/console/guest-<name>.log). plat_xencons_init finds
 * the ring (HVM_PARAM_CONSOLE_PFN/EVTCHN), has the arch make its page accessible
 * (plat_xencons_map) and bounds waits for ring space to wait_ticks of plat_ticks(). */
bool plat_xen_get_param(uint32_t index, uint64_t *value);
void plat_xen_notify(uint32_t port);
bool plat_xencons_init(uint64_t wait_ticks);
bool plat_xencons_map(uint64_t pfn);
bool plat_xencons_active(void);
void plat_xencons_write(const char *s, size_t n);
void plat_xencons_flush(void);
#endif
