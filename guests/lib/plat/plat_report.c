/* plat_report.c - minimal self-contained output for the platform's own protocol lines
 * (fault reports, bad platform parameters): usable before guests/lib is initialised and
 * from exception context (arm64: EL1 only, callers at EL0 go through xt_console_write).
 * Compiled with the platform flags (no FP/SIMD/SSE). */
#include "plat_arch.h"

void plat_print(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	xt_console_write(s, n);
}

void plat_print_u64(uint64_t v, unsigned base)
{
	char buf[24];
	int i = sizeof buf;
	do {
		buf[--i] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	xt_console_write(buf + i, sizeof buf - i);
}

void plat_print_run(void)
{
	char run[128];
	plat_print("run=");
	plat_print(plat_param_str("run", run, sizeof run) && run[0] ? run : "0");  /* as guests/lib */
}

void plat_fail_param(const char *key, const char *msg)
{
	plat_print("XT ERROR ");
	plat_print_run();
	plat_print(" param=");
	plat_print(key);
	plat_print(" msg=\"");
	plat_print(msg);
	plat_print("\"\nXT END ");
	plat_print_run();
	plat_print(" status=badparam\n");
	xt_exit(2);
}
