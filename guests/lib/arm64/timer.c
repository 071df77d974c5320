/* timer.c - the generic timer: CNTVCT_EL0 is the counter (readable at EL0, no VM exit
 * under KVM or Xen), CNTFRQ_EL0 its real frequency; the EL1 virtual timer (CNTV,
 * PPI 27 unless the DTB says otherwise) gives xt_timer_oneshot(). The GIC is set up
 * on first use, so nothing of it runs unless a bench asks for timer interrupts.
 * Handlers run at EL1 inside an IRQ taken from EL0 (IRQs are masked at EL1: an
 * interrupt armed from EL1 code is taken once EL0 code runs). Interrupts serve the boot
 * vCPU only: xt_timer_oneshot() on a secondary returns false (smp.c masks its timer). */
#include "platform.h"
#include "arm64.h"

#define CTL_ENABLE (1u << 0)
#define CTL_IMASK  (1u << 1)

static uint64_t hz;
static enum { UNINIT, ABSENT, READY } state;
static uint64_t armed_deadline;
static void (*handler)(uint64_t now);

uint64_t xt_counter(void)
{
	uint64_t v;
	__asm__ volatile("isb; mrs %0, cntvct_el0; isb" : "=r"(v) : : "memory");
	return v;
}

uint64_t xt_counter_hz(void)
{
	return hz;
}

void arm64_timer_init(void)
{
	hz = read_sysreg(cntfrq_el0) & 0xffffffffu;
	write_sysreg(cntv_ctl_el0, 0);
	write_sysreg(cntkctl_el1, 1u << 1);     /* EL0VCTEN: EL0 reads CNTVCT_EL0 (and CNTFRQ) */
	isb();
}

bool arm64_timer_arm(uint64_t deadline, void (*h)(uint64_t now))
{
	if (arm64_cpu())                        /* the boot vCPU's only (smp.c) */
		return false;
	if (state == UNINIT)
		state = gic_init() && gic_enable_ppi(arm64_board.vtimer_intid) ? READY : ABSENT;
	if (state == ABSENT)
		return false;
	handler = h;
	armed_deadline = deadline;
	if (!h) {
		write_sysreg(cntv_ctl_el0, 0);
		isb();
		return true;
	}
	write_sysreg(cntv_cval_el0, deadline);
	write_sysreg(cntv_ctl_el0, CTL_ENABLE);
	isb();
	return true;
}

void arm64_timer_irq(uint32_t iar, uint64_t now)
{
	write_sysreg(cntv_ctl_el0, CTL_IMASK);         /* stop it asserting before the EOI */
	isb();
	gic_eoi(iar);
	if (!handler)
		return;
	if (now < armed_deadline) {                     /* cannot happen with CVAL; be safe */
		write_sysreg(cntv_ctl_el0, CTL_ENABLE);
		return;
	}
	void (*h)(uint64_t) = handler;
	handler = 0;
	h(now);
}

bool xt_timer_oneshot(uint64_t deadline_counter, void (*h)(uint64_t now))
{
	if (arm64_at_el0)
		return arm64_svc(ARM64_SYS_TIMER, (long)deadline_counter, (long)h, 0);
	return arm64_timer_arm(deadline_counter, h);
}
