/* linux_common.c - the platform.h code shared by the hosted-Linux targets (see
 * linux_common.h): native/platform_linux.c (the `native` backend) and
 * guests/posix/lib/platform_posix.c (xtalk-rt, xtalk-steal). Built by mk/native.mk (into
 * xtalk-bench and xtalk-steal) and mk/posix.mk (named in POSIX_SRC).
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
#include <unistd.h>
#include "xt.h"
#include "linux_common.h"

static char *cmdline = "";

const char *xt_cmdline(void) { return cmdline; }
long xt_run_unprivileged(long (*fn)(void *), void *arg) { return fn(arg); }
void xt_exit(int status) { _exit(status); }

bool lx_set_cmdline(int argc, char **argv)
{
	size_t len = 1;
	char *s;

	for (int i = 1; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = calloc(1, len);
	if (!s)
		return false;
	for (int i = 1; i < argc; i++) {
		if (i > 1)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	cmdline = s;
	return true;
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

void *lx_alloc(size_t bytes, bool hugepage)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t len = (bytes + page - 1) / page * page;
	unsigned char *p;

	if (len == 0)
		len = page;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (hugepage && len >= (2u << 20))
		madvise(p, len, MADV_HUGEPAGE);
	for (size_t off = 0; off < len; off += page)     /* pre-fault: stays zero */
		p[off] = 0;
	return p;
}

void *lx_map_ring_file(const char *path, size_t *bytes)
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

/* Reads a sysfs file into buf (first line); false if absent. */
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
	const char *vcpu_cpus = xt_param_str("vcpu_cpus", "");
	cpu_set_t set;
	unsigned n = 1;

	if (*vcpu_cpus) {          /* a thread per CPU named (several may share one) */
		for (; *vcpu_cpus; vcpu_cpus++)
			n += *vcpu_cpus == ',';
		return n;
	}
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	return (unsigned)CPU_COUNT(&set);
}
