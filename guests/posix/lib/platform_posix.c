/* platform_posix.c - platform.h for the POSIX suite (xtalk-rt) on Linux: natively and
 * inside the Linux-RT guest.
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
#include "rt.h"

static char *cmdline = "";

const char *xt_cmdline(void) { return cmdline; }
long xt_run_unprivileged(long (*fn)(void *), void *arg) { return fn(arg); }
void xt_exit(int status) { _exit(status); }
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
	for (size_t off = 0; off < len; off += page)     /* pre-fault: stays zero */
		p[off] = 0;
	return p;
}

static void *map_file(const char *path, size_t *bytes)
{
	char msg[300];
	struct stat st;
	void *p;
	int fd = open(path, O_RDWR);

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
		return map_file(xt_param_str("ring", ""), bytes);
	if (xt_param_has("ring_gpa") && xt_param_has("ring_bytes"))
		return map_phys(xt_param_u64("ring_gpa", 0), xt_param_u64("ring_bytes", 0), bytes);
	return NULL;
}

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

/* main.c calls this first: argv[1..] -> the parameter string. */
void rt_platform_init(int argc, char **argv)
{
	size_t len = 1;

	for (int i = 1; i < argc; i++)
		len += strlen(argv[i]) + 1;
	cmdline = calloc(1, len);
	if (!cmdline)
		_exit(1);
	for (int i = 1; i < argc; i++) {
		if (i > 1)
			strcat(cmdline, " ");
		strcat(cmdline, argv[i]);
	}
}
