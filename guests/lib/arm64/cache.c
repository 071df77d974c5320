/* cache.c - cache sizes from CLIDR_EL1 / CCSIDR_EL1 (both formats: with FEAT_CCIDX
 * the 64-bit one), read once at EL1 during boot (EL0 cannot read them).
 * (guests/lib applies the llc_bytes=/l2_bytes= overrides.) Read on the boot vCPU; the
 * secondaries (smp.c) are assumed alike.
 * Caveat: what a hypervisor reports may be virtual (QEMU TCG models a Cortex-A57:
 * 32 KiB L1D, 2 MiB L2, no L3). */
#include "platform.h"
#include "arm64.h"

static size_t sizes[4];     /* [1..3] by level */
static int llc_level;

void arm64_cache_detect(void)
{
	uint64_t clidr = read_sysreg(clidr_el1);
	bool ccidx = ((read_sysreg(id_aa64mmfr2_el1) >> 20) & 15) == 1;

	for (int level = 1; level <= 3; level++) {
		unsigned ctype = (clidr >> (3 * (level - 1))) & 7;
		if (ctype < 2 || ctype > 4)             /* none or instruction only */
			continue;
		write_sysreg(csselr_el1, (uint64_t)(level - 1) << 1);
		isb();
		uint64_t cc = read_sysreg(ccsidr_el1), line = 1ull << ((cc & 7) + 4), ways, sets;
		if (ccidx) {
			ways = ((cc >> 3) & 0x1fffff) + 1;
			sets = ((cc >> 32) & 0xffffff) + 1;
		} else {
			ways = ((cc >> 3) & 0x3ff) + 1;
			sets = ((cc >> 13) & 0x7fff) + 1;
		}
		sizes[level] = (size_t)(line * ways * sets);
		llc_level = level;
	}
}

size_t xt_cache_bytes(int level)
{
	if (level == 0)
		level = llc_level;
	return level >= 1 && level <= 3 ? sizes[level] : 0;
}
