/* report.c - minimal self-contained output for the platform's own protocol lines
 * (fault reports, bad platform parameters): usable before guests/lib is initialised
 * and from exception context, and free of SSE (guests/lib code may be vectorised,
 * which the kvm-pvm ring-0 emulator cannot run). */
#include "platform.h"
#include "x86.h"

void x86_print(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	xt_console_write(s, n);
}

void x86_print_u64(uint64_t v, unsigned base)
{
	char buf[24];
	int i = sizeof buf;
	do {
		buf[--i] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	xt_console_write(buf + i, sizeof buf - i);
}

void x86_print_run(void)
{
	char run[128];
	x86_print("run=");
	x86_print(x86_param_str("run", run, sizeof run) && run[0] ? run : "0");  /* as guests/lib */
}

void x86_fail_param(const char *key, const char *msg)
{
	x86_print("XT ERROR ");
	x86_print_run();
	x86_print(" param=");
	x86_print(key);
	x86_print(" msg=\"");
	x86_print(msg);
	x86_print("\"\nXT END ");
	x86_print_run();
	x86_print(" status=badparam\n");
	xt_exit(2);
}
