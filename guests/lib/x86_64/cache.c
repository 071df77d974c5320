/* cache.c - cache sizes from CPUID: leaf 4 (Intel), else leaf 0x8000001d (AMD with
 * topology extensions; same layout), else the legacy AMD leaves 0x80000005/6.
 * (guests/lib applies the llc_bytes=/l2_bytes= overrides.)
 * Caveat: on kvm-pvm, CPUID in ring 3 (where this runs) is not intercepted and shows
 * the host's real caches; under VT-x/AMD-V it shows QEMU's -cpu model. */
#include "platform.h"
#include "x86.h"

static size_t sizes[4];     /* [1..3] by level */
static int llc_level;

static void scan_deterministic(uint32_t leaf)
{
	for (uint32_t i = 0; i < 16; i++) {
		uint32_t r[4];
		cpuid(leaf, i, r);
		unsigned type = r[0] & 0x1f, level = (r[0] >> 5) & 7;
		if (!type)
			break;
		if (type == 2 || level < 1 || level > 3)   /* skip instruction caches */
			continue;
		size_t bytes = (size_t)((r[1] >> 22) + 1) * (((r[1] >> 12) & 0x3ff) + 1) *
			       ((r[1] & 0xfff) + 1) * ((size_t)r[2] + 1);
		sizes[level] = bytes;
	}
}

static void detect(void)
{
	uint32_t r[4];
	cpuid(0, 0, r);
	if (r[0] >= 4)
		scan_deterministic(4);
	if (!sizes[1]) {
		cpuid(0x80000000, 0, r);
		uint32_t max_ext = r[0];
		cpuid(0x80000001, 0, r);
		if (max_ext >= 0x8000001d && (r[2] & (1u << 22)))
			scan_deterministic(0x8000001d);
		if (!sizes[1] && max_ext >= 0x80000006) {
			cpuid(0x80000005, 0, r);
			sizes[1] = (size_t)(r[2] >> 24) << 10;
			cpuid(0x80000006, 0, r);
			sizes[2] = (size_t)(r[2] >> 16) << 10;
			sizes[3] = (size_t)(r[3] >> 18) << 19;
		}
	}
	for (int l = 1; l <= 3; l++)
		if (sizes[l])
			llc_level = l;
}

size_t xt_cache_bytes(int level)
{
	static bool done;
	if (!done) {
		detect();
		done = true;
	}
	if (level == 0)
		level = llc_level;
	return level >= 1 && level <= 3 ? sizes[level] : 0;
}
