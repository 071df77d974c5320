/* platform_linux.c - platform.h for the `native` backend: a Linux host program.
 *
 * main() joins argv[1..] into the parameter string and calls xt_main(). Counter:
 * x86-64 `lfence; rdtsc; lfence` with the frequency calibrated against
 * CLOCK_MONOTONIC_RAW over ~50 ms (rounded to kHz) unless freq_hz= is given; aarch64
 * CNTVCT_EL0 / CNTFRQ_EL0. ring=PATH is mmapped MAP_SHARED (the host creates and
 * initialises the file). Cache sizes come from sysfs (cpu0). Console = unbuffered
 * write(1), so a killed process loses nothing already printed. Allocations are
 * anonymous mmaps, huge-page advised and pre-faulted (no page faults in the window).
 * xt_timer_oneshot is in timer_linux.c (POSIX timer + signal), xt_trap in
 * trap_linux.c, xt_ctx_* in ctx.S. Caveats: TSC calibration assumes an invariant TSC
 * (constant_tsc); pinning and scheduling policy are the caller's job (the native
 * backend), not done here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "xt.h"

static char *cmdline = "";

const char *xt_cmdline(void) { return cmdline; }
const char *xt_platform_name(void) { return "native"; }
long xt_run_unprivileged(long (*fn)(void *), void *arg) { return fn(arg); }
void xt_exit(int status) { _exit(status); }

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

void xt_console_write(const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(1, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

void *xt_alloc(size_t bytes)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t len = (bytes + page - 1) / page * page;
	unsigned char *p;

	if (len == 0)
		len = page;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (len >= (2u << 20))
		madvise(p, len, MADV_HUGEPAGE);
	for (size_t off = 0; off < len; off += page)     /* pre-fault: stays zero */
		p[off] = 0;
	return p;
}

void *xt_ring_memory(size_t *bytes)
{
	const char *path = xt_param_str("ring", NULL);
	char msg[300];
	struct stat st;
	void *p;
	int fd;

	*bytes = 0;
	if (!path)
		return NULL;
	fd = open(path, O_RDWR);
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size < XT_RING_HDR) {
		snprintf(msg, sizeof(msg), "cannot use ring file %s: %s", path,
			 fd < 0 ? strerror(errno) : "too small");
		xt_badparam("ring", msg);
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		snprintf(msg, sizeof(msg), "cannot mmap ring file %s: %s", path, strerror(errno));
		xt_badparam("ring", msg);
	}
	*bytes = (size_t)st.st_size;
	return p;
}

/* Reads a sysfs file into buf; false if absent. */
static bool read_sys(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY);
	ssize_t r;

	if (fd < 0)
		return false;
	r = read(fd, buf, n - 1);
	close(fd);
	if (r <= 0)
		return false;
	buf[r] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return true;
}

size_t xt_cache_bytes(int level)
{
	size_t best = 0;
	int best_level = 0;

	for (int i = 0; i < 16; i++) {
		char path[128], lv[16], type[32], size[32], *end;
		unsigned long v;
		int l;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
		if (!read_sys(path, lv, sizeof(lv)))
			break;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
		if (!read_sys(path, type, sizeof(type)) || !strcmp(type, "Instruction"))
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		if (!read_sys(path, size, sizeof(size)))
			continue;
		l = atoi(lv);
		v = strtoul(size, &end, 10);
		if (*end == 'K')
			v <<= 10;
		else if (*end == 'M')
			v <<= 20;
		else if (*end == 'G')
			v <<= 30;
		if (level == l)
			return v;
		if (level == 0 && l > best_level) {
			best_level = l;
			best = v;
		}
	}
	return level == 0 ? best : 0;
}

unsigned xt_ncpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	return (unsigned)CPU_COUNT(&set);
}

int main(int argc, char **argv)
{
	size_t len = 1;

	for (int i = 1; i < argc; i++)
		len += strlen(argv[i]) + 1;
	cmdline = calloc(1, len);
	if (!cmdline)
		return 1;
	for (int i = 1; i < argc; i++) {
		if (i > 1)
			strcat(cmdline, " ");
		strcat(cmdline, argv[i]);
	}
	xt_main();
}
