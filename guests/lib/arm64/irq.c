/* irq.c - an IRQ taken from EL0: acknowledged at the GIC, passed to the device that
 * raised it (the virtual timer: timer.c; the PL061 GPIO: pl061.c), which ends it;
 * anything else (spurious, or a line nobody enabled) is ended here. */
#include "arm64.h"

void arm64_irq(uint64_t now)
{
	uint32_t iar = gic_ack(), intid = iar & 0xffffff;

	if (intid >= 1020 && intid <= 1023)             /* spurious: nothing to end */
		return;
	if (intid == arm64_board.vtimer_intid)
		arm64_timer_irq(iar, now);
	else if (arm64_board.gpio_base && intid == arm64_board.gpio_intid)
		arm64_gpio_irq(iar, now);
	else
		gic_eoi(iar);
}
