/* pic8259.c - mask the legacy 8259 PICs (SeaBIOS leaves the PIT on IRQ 0, which would
 * arrive on vector 8 once ring 3 runs with interrupts enabled). Harmless if absent. */
#include "x86.h"

void x86_pic_disable(void)
{
	outb(0x21, 0xff);
	outb(0xa1, 0xff);
}
