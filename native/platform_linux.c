/* platform_linux.c - platform.h for the `native` backend: a Linux host program.
 *
 * main() joins argv[1..] into the parameter string and calls xt_main(), or prints the
 * catalogue of the benches (`xtalk-bench catalogue`, catalogue.c). Counter:
 * x86-64 `lfence; rdtsc; lfence` with the frequency calibrated against
 * CLOCK_MONOTONIC_RAW over ~50 ms (rounded to kHz) unless freq_hz= is given; aarch64
 * CNTVCT_EL0 / CNTFRQ_EL0. ring=PATH is mmapped MAP_SHARED (the host creates and
 * initialises the file). Cache sizes come from sysfs (cpu0). Console = unbuffered
 * write(1), so a killed process loses nothing already printed. Allocations are
 * anonymous mmaps, huge-page advised and pre-faulted (no page faults in the window).
 * xt_timer_oneshot is in timer_linux.c (POSIX timer + signal), xt_trap in
 * trap_linux.c, xt_ctx_* in ctx.S; what it shares with xtalk-rt (parameters,
 * console, ring file, sysfs cache sizes, CPUs) in linux_common.c. Caveats: TSC
 * calibration assumes an invariant TSC (constant_tsc); pinning and scheduling policy
 * are the caller's job (the native backend), not done here.
 */
#define _GNU_SOURCE
#include <time.h>
#include "xt.h"
#include "linux_common.h"

const char *xt_platform_name(void) { return "native"; }

bool xt_gpio_irq(unsigned in_pin, unsigned out_pin, void (*h)(uint64_t now))
{
	(void)in_pin, (void)out_pin, (void)h;
	return false;                                   /* a host process has no GPIO interrupt */
}

bool xt_gpio_out(unsigned pin)
{
	(void)pin;
	return false;                                   /* nor a GPIO output */
}

void xt_gpio_flip(void)
{
}

uint64_t xt_counter(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi;
	__asm__ __volatile__("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
#elif defined(__aarch64__)
	uint64_t v;
	__asm__ __volatile__("isb; mrs %0, cntvct_el0; isb" : "=r"(v) : : "memory");
	return v;
#else
#error "native: unsupported architecture"
#endif
}

#if !defined(__aarch64__)
static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
#endif

uint64_t xt_counter_hz(void)
{
	static uint64_t hz;
#if defined(__aarch64__)
	__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(hz));
#else
	if (!hz) {
		uint64_t t0 = now_ns(), c0 = xt_counter(), t1, c1;
		do {
			t1 = now_ns();
			c1 = xt_counter();
		} while (t1 - t0 < 50000000ull);
		hz = (uint64_t)((double)(c1 - c0) * 1e9 / (double)(t1 - t0));
		hz = (hz + 500) / 1000 * 1000;
	}
#endif
	return hz;
}

void *xt_alloc(size_t bytes)
{
	return lx_alloc(bytes, true);
}

void *xt_ring_memory(size_t *bytes)
{
	const char *path = xt_param_str("ring", NULL);

	*bytes = 0;
	return path ? lx_map_ring_file(path, bytes) : NULL;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !xt_strcmp(argv[1], "catalogue")) {
		xt_catalogue();
		return 0;
	}
	if (!lx_set_cmdline(argc, argv))
		return 1;
	xt_main();
}
