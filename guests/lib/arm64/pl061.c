/* pl061.c - the ARM PL061 GPIO controller the DTB names ("arm,pl061"): xt_gpio_irq()
 * takes an interrupt on an input line's rising edge and answers it on an output line,
 * toggled at once in the handler (the response a logic analyser sees, docs/instruments.md),
 * before the bench's handler is called with the counter read at the IRQ's entry.
 * xt_gpio_out() makes a line an output alone (no interrupt, no GIC) that
 * xt_gpio_flip() toggles from another interrupt's handler (timer_latency's out_pin).
 * QEMU virt has one at 0x09030000 (SPI 7); its line 3 is the power button's gpio-key
 * when ACPI is off (`-machine virt,acpi=off`): each QMP system_powerdown raises it for
 * 100 ms, a stimulus from outside. Set up on first use; the GIC with it. Handlers run
 * at EL1 inside an IRQ taken from EL0 (timer.c). The interrupt serves the boot vCPU
 * only: xt_gpio_irq() on a secondary returns false. */
#include "platform.h"
#include "arm64.h"

#define GPIODIR 0x400
#define GPIOIS  0x404   /* 0: edge-sensitive */
#define GPIOIBE 0x408   /* 0: one edge (GPIOIEV) */
#define GPIOIEV 0x40c   /* 1: rising */
#define GPIOIE  0x410
#define GPIOMIS 0x418
#define GPIOIC  0x41c

static enum { UNINIT, ABSENT, READY } state;
static uint32_t in_bit, out_bit, level;
static void (*handler)(uint64_t now);

static uint64_t reg(unsigned off)
{
	return arm64_board.gpio_base + off;
}

static void set_out(uint32_t on)
{
	mmio_w32(arm64_board.gpio_base + (out_bit << 2), on ? out_bit : 0);   /* GPIODATA, masked by address */
}

/* out_bit becomes an output at level 0 (the other lines keep their direction). */
static void make_output(unsigned pin)
{
	out_bit = 1u << pin;
	level = 0;
	mmio_w32(reg(GPIODIR), mmio_r32(reg(GPIODIR)) | out_bit);
	set_out(0);
}

bool arm64_gpio_arm(unsigned in_pin, unsigned out_pin, void (*h)(uint64_t now))
{
	if (arm64_cpu())                        /* the boot vCPU's only (smp.c) */
		return false;
	if (state == UNINIT)
		state = arm64_board.gpio_base && gic_init() && gic_enable_spi(arm64_board.gpio_intid) ? READY : ABSENT;
	if (state == ABSENT || in_pin > 7 || out_pin > 7 || in_pin == out_pin)
		return false;
	mmio_w32(reg(GPIOIE), 0);
	handler = h;
	if (!h)
		return true;
	in_bit = 1u << in_pin;
	mmio_w32(reg(GPIODIR), mmio_r32(reg(GPIODIR)) & ~in_bit);
	make_output(out_pin);
	mmio_w32(reg(GPIOIS), mmio_r32(reg(GPIOIS)) & ~in_bit);
	mmio_w32(reg(GPIOIBE), mmio_r32(reg(GPIOIBE)) & ~in_bit);
	mmio_w32(reg(GPIOIEV), mmio_r32(reg(GPIOIEV)) | in_bit);
	mmio_w32(reg(GPIOIC), 0xff);
	mmio_w32(reg(GPIOIE), in_bit);
	return true;
}

void arm64_gpio_irq(uint32_t iar, uint64_t now)
{
	uint32_t mis = mmio_r32(reg(GPIOMIS));

	mmio_w32(reg(GPIOIC), mis);                     /* the line drops before the EOI */
	if (mis & in_bit)
		xt_gpio_flip();                         /* the response, first thing */
	gic_eoi(iar);
	if ((mis & in_bit) && handler)
		handler(now);
}

bool xt_gpio_irq(unsigned in_pin, unsigned out_pin, void (*h)(uint64_t now))
{
	if (arm64_at_el0)
		return arm64_svc(ARM64_SYS_GPIO, (long)(in_pin | out_pin << 16), (long)h, 0);
	return arm64_gpio_arm(in_pin, out_pin, h);
}

bool arm64_gpio_out(unsigned pin)
{
	if (!arm64_board.gpio_base || pin > 7)
		return false;
	make_output(pin);
	return true;
}

bool xt_gpio_out(unsigned pin)
{
	if (arm64_at_el0)
		return arm64_svc(ARM64_SYS_GPIO_OUT, (long)pin, 0, 0);
	return arm64_gpio_out(pin);
}

void xt_gpio_flip(void)
{
	if (out_bit)
		set_out(level ^= 1);
}
