/* linux_common.h - the platform.h pieces every hosted-Linux target shares: the `native`
 * backend's program (native/platform_linux.c) and the POSIX suite xtalk-rt
 * (guests/posix/lib/platform_posix.c, natively and inside the Linux-RT guest).
 *
 * linux_common.c defines these platform.h functions outright: xt_cmdline (the string
 * lx_set_cmdline built), xt_run_unprivileged (a plain call), xt_exit (_exit),
 * xt_console_write (unbuffered write(1)), xt_cache_bytes (sysfs, cpu0) and xt_ncpus
 * (the affinity mask). The counter, the platform name, xt_alloc and xt_ring_memory
 * stay with each target; they build on the helpers below.
 */
#ifndef XT_LINUX_COMMON_H
#define XT_LINUX_COMMON_H
#include <stdbool.h>
#include <stddef.h>

/* argv[1..] joined with spaces becomes xt_cmdline(); false when out of memory. */
bool lx_set_cmdline(int argc, char **argv);

/* Zeroed anonymous pages, pre-faulted (no page faults in a measured window); with
 * hugepage, 2 MiB and larger allocations are advised MADV_HUGEPAGE first. */
void *lx_alloc(size_t bytes, bool hugepage);

/* mmaps the ring file path MAP_SHARED (the host created and initialised it); a missing,
 * short or unmappable file ends the run through xt_badparam("ring", ...). */
void *lx_map_ring_file(const char *path, size_t *bytes);

#endif
