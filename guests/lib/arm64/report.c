/* report.c - minimal self-contained output for the platform's own protocol lines
 * (fault reports, bad platform parameters): usable before guests/lib is initialised
 * and from exception context (EL1 only: callers at EL0 go through xt_console_write). */
#include "platform.h"
#include "arm64.h"

void arm64_print(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	xt_console_write(s, n);
}

void arm64_print_u64(uint64_t v, unsigned base)
{
	char buf[24];
	int i = sizeof buf;
	do {
		buf[--i] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	xt_console_write(buf + i, sizeof buf - i);
}

void arm64_print_run(void)
{
	char run[128];
	arm64_print("run=");
	arm64_print(arm64_param_str("run", run, sizeof run) && run[0] ? run : "unknown");
}

void arm64_fail_param(const char *key, const char *msg)
{
	arm64_print("XT ERROR ");
	arm64_print_run();
	arm64_print(" param=");
	arm64_print(key);
	arm64_print(" msg=\"");
	arm64_print(msg);
	arm64_print("\"\nXT END ");
	arm64_print_run();
	arm64_print(" status=badparam\n");
	xt_exit(2);
}
