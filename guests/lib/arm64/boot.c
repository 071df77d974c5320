/* boot.c - arm64_boot(): from head.S to xt_main().
 * With the MMU off: read the device tree, start the UART; then build the identity map
 * and turn the MMU on, switch to the Xen console if any, open the counter to EL0,
 * read the cache sizes, and run the arch-neutral xt_main() at EL1 (it runs the
 * measurement loops at EL0 through xt_run_unprivileged). */
#include "platform.h"
#include "arm64.h"
#include "xt.h"

void arm64_boot(uint64_t dtb)
{
	arm64_board_parse(dtb);
	arm64_console_init();
	arm64_mmu_init();
	arm64_console_upgrade();
	arm64_timer_init();
	arm64_cache_detect();
	void (*volatile main_fn)(void) = xt_main;      /* must not return, but if it does */
	main_fn();
	plat_print("XT ERROR ");
	plat_print_run();
	plat_print(" msg=\"xt_main returned\"\nXT END ");
	plat_print_run();
	plat_print(" status=fail\n");
	arm64_exit_now(1);
}

const char *xt_platform_name(void) { return arm64_board.platform; }
