/* platform.h - what every target provides to the arch-neutral benchmark code.
 *
 * Targets: native/ (a Linux host program for the `native` backend),
 * guests/lib/x86_64/ (PVH + multiboot probe guest), guests/lib/arm64/ (Image-format
 * probe guest). Benchmarks in guests/bench/ and the neutral library in guests/lib/
 * call only these functions and freestanding C (no libc headers beyond the
 * freestanding ones: stdint.h, stddef.h, stdbool.h, stdarg.h).
 *
 * Caveat: xt_counter() must be cheap and must not cause a VM exit (TSC / CNTVCT_EL0).
 */
#ifndef XT_PLATFORM_H
#define XT_PLATFORM_H
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

/* Free-running counter and its frequency in Hz (0 if unknown: then the host must
 * pass freq_hz= on the command line). */
uint64_t xt_counter(void);
uint64_t xt_counter_hz(void);

/* Console output (serial / stdout). Never called inside a measured window. */
void xt_console_write(const char *s, size_t n);

/* The parameter string: "key=value key=value ..." (kernel cmdline or argv joined). */
const char *xt_cmdline(void);

/* Shared memory for the sample ring (docs/protocol.md section 3), or NULL when the
 * platform has none (samples are then drained over the console with XT SAMPLE). */
void *xt_ring_memory(size_t *bytes);

/* Large, zeroed, page-aligned allocation for working sets; NULL when out of memory. */
void *xt_alloc(size_t bytes);

/* Cache topology as the platform sees it (0 = unknown). level is 1, 2, 3; the last
 * level cache is xt_cache_bytes(0). */
size_t xt_cache_bytes(int level);

/* Short platform name for XT BEGIN platform=: native / microvm / pc / virt / xen. */
const char *xt_platform_name(void);

/* Several vCPUs (a guest's `vcpus = N`). xt_ncpus(): the CPUs this platform can run
 * the workload on: the vCPUs its firmware tables name (x86-64: fw_cfg / MADT / CPUID,
 * arm64: the DTB's /cpus), natively the threads vcpu_cpus= names, else the process's
 * allowed CPUs; 1 where it can tell none (x86-64 under Xen PVH). xt_cpu_index(): the
 * calling vCPU's index, 0 = the boot vCPU (x86-64: from the vCPU's GS base block;
 * arm64: TPIDRRO_EL0; natively thread-local); cheap, and callable unprivileged (ring 3 /
 * EL0) inside measured loops. xt_cpu_start(cpu, fn, arg): runs fn(arg) on vCPU cpu
 * (1 .. xt_ncpus()-1) on a stack of its own, in the same address space, with the
 * console and xt_run_unprivileged usable there (x86-64: INIT-SIPI-SIPI, fn in ring 3 as
 * the boot vCPU's bench code runs, ring 0 being emulated on kvm-pvm; arm64: PSCI CPU_ON,
 * fn at EL1; natively a thread, pinned where vcpu_cpus= names CPUs); returns once
 * the vCPU runs fn, false when it cannot be started (absent, or not up within 1 s).
 * When fn returns the vCPU parks (halts) for good. Interrupt-driven helpers
 * (xt_timer_oneshot, xt_gpio_irq) serve the boot vCPU only. */
unsigned xt_ncpus(void);
unsigned xt_cpu_index(void);
bool xt_cpu_start(unsigned cpu, void (*fn)(void *), void *arg);

/* Ends the workload: status 0 pass, 1 fail/fault, 2 bad parameter. */
void xt_exit(int status) __attribute__((noreturn));

/* Run fn(arg) in the least privileged mode available (ring 3 / EL0 in guests; a plain
 * call on native). Measurement loops go through this: on kvm-pvm hosts guest ring 0 is
 * emulated, ring 3 runs natively (see shared host facts). Returns fn's result. */
long xt_run_unprivileged(long (*fn)(void *), void *arg);

/* Optional timer interrupt support (timer_latency bench). Returns false if absent.
 * handler is called in interrupt context with the counter value at handler entry. */
bool xt_timer_oneshot(uint64_t deadline_counter, void (*handler)(uint64_t now));
/* One-shot semantics (all targets): the handler runs at most once per arming, never
 * before deadline_counter (a deadline already past fires at once); arming again replaces
 * the previous deadline and handler; handler NULL cancels. Native: a POSIX timer
 * (CLOCK_MONOTONIC) delivering a signal to the process, the handler runs in the signal
 * handler. Benches arm from their loop, not from inside the handler (on x86 an
 * interrupt may arrive while the previous handler is still returning, see entry.S). */

/* Optional GPIO interrupt (gpio_irq bench): an interrupt on input line in_pin's rising
 * edge is answered by toggling output line out_pin inside the interrupt, before
 * handler(now) runs with the counter read at its entry; handler NULL disarms. False
 * where there is no such GPIO: arm64 has it where the DTB names a PL061 (pl061.c),
 * x86_64 and native have none. */
bool xt_gpio_irq(unsigned in_pin, unsigned out_pin, void (*handler)(uint64_t now));
/* Optional GPIO output alone (timer_latency's out_pin): the platform's GPIO with no
 * interrupt, so a bench's own events drive a pin an instrument watches. Same GPIO as
 * xt_gpio_irq's. */
bool xt_gpio_out(unsigned pin);  /* make line `pin` an output at level 0 for xt_gpio_flip; false where there is no GPIO (x86_64, native, arm64 without a PL061) */
void xt_gpio_flip(void);         /* toggle that line; from an interrupt handler (EL1 on arm64); nothing where there is none */

/* Minimal thread contexts (sched_metric): the callee-saved registers and the stack
 * pointer, switched by a few instructions of per-arch assembly (x86_64/ctx.S,
 * arm64/ctx.S; native/ctx.S uses the same files). xt_ctx_init prepares *c so that the
 * first xt_ctx_switch to it calls entry(arg) on [stack, stack+bytes) (entry must never
 * return: that traps). xt_ctx_switch saves the current context in *from and resumes *to.
 * No privilege, no signal mask, no FP state beyond the callee-saved registers: usable
 * in ring 3 / EL0 and as a host program. */
struct xt_ctx { void *sp; };
void xt_ctx_init(struct xt_ctx *c, void *stack, size_t bytes, void (*entry)(void *), void *arg);
void xt_ctx_switch(struct xt_ctx *from, struct xt_ctx *to);

/* Operations that make the hypervisor work (vmexit_storm). xt_trap_kinds() names the
 * kinds this platform offers, comma-separated, the default first (x86: pio,mmio,cpuid,
 * gate; arm64: hvc,mmio,gate; native: syscall). xt_trap_kind(name) returns the kind's
 * number, or -1 if unknown or unusable here (call it before the loop: it may check the
 * machine). xt_trap(kind) performs one operation; callable unprivileged (it enters the
 * privileged level itself where the operation needs it). */
const char *xt_trap_kinds(void);
int xt_trap_kind(const char *name);
void xt_trap(int kind);
#endif
