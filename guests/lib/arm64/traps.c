/* traps.c - exceptions (vectors.S calls in here) and the EL0 -> EL1 services.
 * A fault ends the run:
 *   XT ERROR run=R msg="fault vector=sync el=0 esr=0x... ec=0x.. far=0x... elr=0x..."
 *   XT END run=R status=fault
 * (far is FAR_EL1 for instruction/data aborts and alignment faults, else 0) and
 * PSCI off. IRQs taken from EL0 go to irq.c (the timer, the GPIO); `svc #1` from EL0 is a
 * service call: x0 = number (ARM64_SYS_*), x1..x3 arguments, result in x0. */
#include "platform.h"
#include "arm64.h"

static const char *const kind_names[] = { "sync", "irq", "fiq", "serror" };

static void report(const struct arm64_frame *f, unsigned kind, unsigned el)
{
	static bool reporting;
	unsigned ec = (unsigned)(f->esr >> 26) & 0x3f;
	bool far_valid = ec == 0x20 || ec == 0x21 || ec == 0x22 || ec == 0x24 || ec == 0x25 || ec == 0x35;

	arm64_at_el0 = 0;
	if (reporting)                  /* faulted while reporting: just stop */
		arm64_exit_now(1);
	reporting = true;
	plat_print("XT ERROR ");
	plat_print_run();
	plat_print(" msg=\"fault vector=");
	plat_print(kind_names[kind & 3]);
	plat_print(kind & ARM64_EXC_SP0 ? " el=1t esr=0x" : el ? " el=1 esr=0x" : " el=0 esr=0x");
	plat_print_u64(f->esr, 16);
	plat_print(" ec=0x");
	plat_print_u64(ec, 16);
	plat_print(" far=0x");
	plat_print_u64(far_valid ? f->far : 0, 16);
	plat_print(" elr=0x");
	plat_print_u64(f->elr, 16);
	plat_print("\"\nXT END ");
	plat_print_run();
	plat_print(" status=fault\n");
	arm64_exit_now(1);
}

static long service(long nr, long a, long b)
{
	switch (nr) {
	case ARM64_SYS_WRITE:
		arm64_console_write((const char *)a, (size_t)b);
		return 0;
	case ARM64_SYS_EXIT:
		arm64_exit_now((int)a);
	case ARM64_SYS_TIMER:
		return arm64_timer_arm((uint64_t)a, (void (*)(uint64_t))b);
	case ARM64_SYS_GPIO:
		return arm64_gpio_arm((unsigned)a & 0xffff, (unsigned)a >> 16, (void (*)(uint64_t))b);
	case ARM64_SYS_GPIO_OUT:
		return arm64_gpio_out((unsigned)a);
	case ARM64_SYS_TRAP:
		return arm64_trap_el1(a);
	}
	return -1;
}

void arm64_el0_exception(struct arm64_frame *f, unsigned kind)
{
	unsigned k = kind & 3;
	if (k == ARM64_EXC_IRQ) {
		arm64_irq(f->now);
		return;
	}
	if (k == ARM64_EXC_SYNC && (f->esr >> 26) == 0x15 && (f->esr & 0xffff) == 1) {
		f->x[0] = (uint64_t)service((long)f->x[0], (long)f->x[1], (long)f->x[2]);
		return;
	}
	report(f, kind, 0);
}

void arm64_el1_exception(struct arm64_frame *f, unsigned kind)
{
	report(f, kind, 1);
	for (;;)
		;
}
