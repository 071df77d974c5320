/* start.c - x86_boot(): from boot.S to xt_main().
 * Ring 0 does only what must happen before the first console line (boot information,
 * UART, descriptor tables, guard pages) and then runs xt_main() in ring 3 for the rest
 * of the run (see x86.h for why). */
#include "platform.h"
#include "x86.h"
#include "xt.h"

struct x86_bootinfo x86_boot_info;

static long run_main(void *arg)
{
	void (*volatile main_fn)(void) = xt_main;      /* must not return, but if it does */
	(void)arg;
	main_fn();
	return 0;
}

void x86_boot(uint32_t kind, uint32_t info)
{
	x86_cpu_init();                /* first: the GS base that xt_cpu_index reads */
	if (kind == 1)
		x86_pvh_parse(info);
	else
		x86_multiboot_parse(info);
	x86_uart_init();
	if (x86_xen_base())
		x86_xencons_init();    /* Xen PVH: no UART, the PV console instead */
	x86_console_out("\n", 1);      /* end whatever firmware printed on this line */
	x86_pic_disable();
	x86_smp_init();
	x86_mem_protect();
	xt_run_unprivileged(run_main, 0);
	plat_print("XT ERROR ");
	plat_print_run();
	plat_print(" msg=\"xt_main returned\"\nXT END ");
	plat_print_run();
	plat_print(" status=fail\n");
	x86_exit_now(1);
}

const char *xt_platform_name(void) { return x86_boot_info.platform; }
