/* user.c - ring-0 services for ring-3 code (entry.S routes `call x86_syscall` here).
 * Only what needs privilege: console port I/O, the exit port, the LAPIC timer, the
 * port I/O of vmexit_storm (trap.c) and the IPIs that start a vCPU (smp.c). */
#include "platform.h"
#include "x86.h"

long x86_syscall_dispatch(long nr, long a, long b, long c)
{
	switch (nr) {
	case X86_SYS_WRITE:
		x86_console_out((const char *)a, (size_t)b);
		return 0;
	case X86_SYS_EXIT:
		x86_exit_now((int)a);
	case X86_SYS_TIMER:
		return x86_lapic_timer_arm((uint64_t)a, (x86_timer_fn)b);
	case X86_SYS_TRAP:
		return x86_trap_ring0(a);
	case X86_SYS_CPU_INIT:
	case X86_SYS_CPU_SIPI:
	case X86_SYS_CPU_RESET:
		return x86_smp_ring0(nr, a, b, c);
	}
	return -1;
}
