/* platform_posix.c - platform.h for the POSIX suite (xtalk-rt) on Linux: natively and
 * inside the Linux-RT guest; the steal injector (native/steal.c) uses it too.
 *
 * Counter: CLOCK_MONOTONIC in ns (freq_hz=1000000000), so BEGIN t0 and every sample
 * time are on the (guest) kernel's monotonic clock. Console: unbuffered write(1).
 * Parameters: argv[1..] joined with spaces. Sample ring: ring=PATH (native: a file the
 * host created) or ring_gpa=/ring_bytes= (guest: guest-physical memory the kernel was
 * told to leave alone with memmap= / mem=, mapped from /dev/mem; allowed under
 * CONFIG_STRICT_DEVMEM because it is not System RAM). When /dev/mem cannot be mapped the
 * reason goes out as XT META ring_error= and samples are drained as XT SAMPLE lines.
 * Caveat (arm64): a /dev/mem mapping of non-RAM is Device memory: uncached, aligned
 * accesses only (the ring writer does aligned 32/64-bit stores).
 * What it shares with the `native` program (parameters, console, ring file, sysfs
 * cache sizes, CPUs, pre-faulted allocations) is native/linux_common.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "rt.h"
#include "linux_common.h"

uint64_t xt_counter_hz(void) { return RT_NS; }

const char *xt_platform_name(void)
{
#ifdef XT_POSIX_GUEST
	return xt_param_str("platform", "linux");
#else
	return xt_param_str("platform", "native");
#endif
}

bool xt_timer_oneshot(uint64_t deadline_counter, void (*handler)(uint64_t now))
{
	(void)deadline_counter;
	(void)handler;
	return false;
}

uint64_t xt_counter(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * RT_NS + (uint64_t)ts.tv_nsec;
}

void *xt_alloc(size_t bytes)
{
	return lx_alloc(bytes, false);
}

/* Guest-physical ring through /dev/mem; NULL (and META ring_error) if impossible. */
static void *map_phys(uint64_t gpa, uint64_t len, size_t *bytes)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p = MAP_FAILED;
	int fd;

	if (gpa % (uint64_t)page || len < XT_RING_HDR + XT_SLOT_SIZE) {
		xt_meta("ring_error=\"ring_gpa not page aligned or ring_bytes too small\"");
		return NULL;
	}
	fd = open("/dev/mem", O_RDWR);
	if (fd >= 0) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)gpa);
		close(fd);
	}
	if (p == MAP_FAILED) {
		xt_meta("ring_error=\"/dev/mem at %#lx: %s\"", (unsigned long)gpa, strerror(errno));
		return NULL;
	}
	*bytes = len;
	return p;
}

void *xt_ring_memory(size_t *bytes)
{
	*bytes = 0;
	if (xt_param_has("ring"))
		return lx_map_ring_file(xt_param_str("ring", ""), bytes);
	if (xt_param_has("ring_gpa") && xt_param_has("ring_bytes"))
		return map_phys(xt_param_u64("ring_gpa", 0), xt_param_u64("ring_bytes", 0), bytes);
	return NULL;
}

/* main.c calls this first: argv[1..] -> the parameter string. */
void rt_platform_init(int argc, char **argv)
{
	if (!lx_set_cmdline(argc, argv))
		_exit(1);
}
