/* trap_linux.c - xt_trap for the native program (vmexit_storm). A bare machine has no
 * VM exits; the hosted analogue of "leave the workload for the privileged level and
 * come back" is a cheap system call: kind `syscall` = getppid(2) through syscall(2)
 * (never cached by the C library), the user -> kernel -> user round trip. */
#define _GNU_SOURCE
#include <sys/syscall.h>
#include <unistd.h>
#include "xt.h"

const char *xt_trap_kinds(void)
{
	return "syscall";
}

int xt_trap_kind(const char *name)
{
	return xt_strcmp(name, "syscall") ? -1 : 0;
}

void xt_trap(int kind)
{
	(void)kind;
	syscall(SYS_getppid);
}
