/* plat_trap.c - xt_trap_kinds / xt_trap_kind (platform.h) over the arch's table of
 * kinds (plat_trap_names, plat_trap_available); xt_trap itself is per arch (trap.c). */
#include "plat_arch.h"

const char *xt_trap_kinds(void)
{
	return plat_trap_names;
}

int xt_trap_kind(const char *name)
{
	const char *p = plat_trap_names;
	for (int k = 0; *p; k++) {
		const char *n = name;
		while (*n && *n == *p)
			n++, p++;
		if (!*n && (*p == ',' || !*p))
			return plat_trap_available(k) ? k : -1;
		while (*p && *p != ',')
			p++;
		if (*p)
			p++;
	}
	return -1;
}
