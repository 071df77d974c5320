/* lapic.c - one-shot timer interrupts from the local APIC (xAPIC MMIO or x2APIC MSRs,
 * whichever mode the firmware left). TSC-deadline mode when CPUID.1:ECX[24] says so;
 * otherwise one-shot mode with the APIC-tick/TSC-tick ratio calibrated once (~1.5 ms)
 * on first use. The handler never runs before its deadline (an early one-shot expiry
 * is re-armed for the rest). The handler runs in ring 3 (see entry.S). Set up lazily:
 * nothing of this runs at boot. The timer is the boot vCPU's alone; x86_lapic_ipi sends
 * the INIT and STARTUP IPIs of smp.c from the boot vCPU (no other vCPU touches its
 * local APIC: theirs stay software-disabled, so nothing interrupts them). */
#include "platform.h"
#include "x86.h"

#define MSR_APIC_BASE    0x1b
#define MSR_TSC_DEADLINE 0x6e0
#define APIC_EOI   0x0b0
#define APIC_ICR   0x300
#define APIC_ICR2  0x310
#define ICR_BUSY   (1u << 12)
#define APIC_SVR   0x0f0
#define APIC_LVTT  0x320
#define APIC_TICR  0x380
#define APIC_TCCR  0x390
#define APIC_TDCR  0x3e0
#define LVT_MASKED (1u << 16)
#define LVT_TSC_DEADLINE (2u << 17)
#define RATIO_SHIFT 20

static enum { UNINIT, ABSENT, DEADLINE, ONESHOT } mode;
static bool x2apic;
static volatile uint32_t *mmio;
static uint64_t ratio;                          /* APIC ticks per TSC tick << RATIO_SHIFT */
static uint64_t armed_deadline;
static x86_timer_fn handler;

static void apic_write(unsigned reg, uint32_t v)
{
	if (x2apic)
		wrmsr(0x800 + (reg >> 4), v);
	else
		mmio[reg / 4] = v;
}

static uint32_t apic_read(unsigned reg)
{
	return x2apic ? (uint32_t)rdmsr(0x800 + (reg >> 4)) : mmio[reg / 4];
}

static void calibrate(void)
{
	apic_write(APIC_LVTT, LVT_MASKED | X86_VEC_TIMER);
	uint64_t s = rdtsc();
	apic_write(APIC_TICR, 0xffffffff);
	uint64_t t0 = (s + rdtsc()) / 2;
	while (rdtsc() - t0 < (1u << 22))
		;
	uint64_t a = rdtsc();
	uint32_t left = apic_read(APIC_TCCR);
	uint64_t t1 = (a + rdtsc()) / 2;
	apic_write(APIC_TICR, 0);
	ratio = ((uint64_t)(0xffffffffu - left) << RATIO_SHIFT) / (t1 - t0);
}

/* The APIC's presence, mode and address (globally enabled if the firmware left it off). */
static bool find_apic(void)
{
	static enum { UNKNOWN, NONE, FOUND } found;
	if (found == UNKNOWN) {
		uint32_t r[4];
		cpuid(1, 0, r);
		found = r[3] & (1u << 9) ? FOUND : NONE;
		if (found == FOUND) {
			uint64_t base = rdmsr(MSR_APIC_BASE);
			if (!(base & (1u << 11)))
				wrmsr(MSR_APIC_BASE, base |= 1u << 11);
			x2apic = base & (1u << 10);
			mmio = (volatile uint32_t *)(uintptr_t)(base & 0xfffff000u);
		}
	}
	return found == FOUND;
}

static void init(void)
{
	uint32_t r[4];
	if (!find_apic()) {
		mode = ABSENT;
		return;
	}
	cpuid(1, 0, r);
	apic_write(APIC_SVR, 0x100 | X86_VEC_SPURIOUS);
	apic_write(APIC_TDCR, 0xb);                     /* divide by 1 */
	if (r[2] & (1u << 24)) {
		apic_write(APIC_LVTT, LVT_TSC_DEADLINE | X86_VEC_TIMER);
		mode = DEADLINE;
	} else {
		calibrate();
		apic_write(APIC_LVTT, X86_VEC_TIMER);   /* one-shot, unmasked */
		mode = ONESHOT;
	}
}

static void program(uint64_t deadline)
{
	if (mode == DEADLINE) {
		wrmsr(MSR_TSC_DEADLINE, deadline ? deadline : 1);
		return;
	}
	uint64_t now = rdtsc(), delta = deadline > now ? deadline - now : 0, count;
	if (ratio && delta > UINT64_MAX / ratio)
		count = 0xffffffff;                     /* far away: re-armed on expiry */
	else
		count = (delta * ratio) >> RATIO_SHIFT;
	apic_write(APIC_TICR, count > 0xffffffff ? 0xffffffff : count ? (uint32_t)count : 1);
}

bool x86_lapic_timer_arm(uint64_t deadline, x86_timer_fn h)
{
	if (mode == UNINIT)
		init();
	if (mode == ABSENT)
		return false;
	handler = h;
	armed_deadline = deadline;
	if (!h) {                                       /* cancel */
		if (mode == DEADLINE)
			wrmsr(MSR_TSC_DEADLINE, 0);
		else
			apic_write(APIC_TICR, 0);
		return true;
	}
	program(deadline);
	return true;
}

static void icr_wait_idle(void)
{
	for (unsigned i = 0; i < 100000 && (mmio[APIC_ICR / 4] & ICR_BUSY); i++)
		__asm__ volatile("pause");
}

bool x86_lapic_ipi(uint32_t apic_id, uint32_t icr)
{
	if (!find_apic())
		return false;
	if (x2apic) {
		wrmsr(0x800 + (APIC_ICR >> 4), ((uint64_t)apic_id << 32) | icr);
		return true;
	}
	icr_wait_idle();
	mmio[APIC_ICR2 / 4] = apic_id << 24;
	mmio[APIC_ICR / 4] = icr;
	icr_wait_idle();
	return true;
}

/* From entry.S: acknowledge; return the handler to run (entry.S runs it in ring 3). */
x86_timer_fn x86_lapic_timer_irq(uint64_t now)
{
	apic_write(APIC_EOI, 0);
	if (!handler)
		return 0;
	if (now < armed_deadline) {                     /* one-shot expired early */
		program(armed_deadline);
		return 0;
	}
	x86_timer_fn h = handler;
	handler = 0;
	return h;
}

bool xt_gpio_irq(unsigned in_pin, unsigned out_pin, void (*h)(uint64_t now))
{
	(void)in_pin, (void)out_pin, (void)h;
	return false;                                   /* no GPIO on the x86_64 probe's machines */
}

bool xt_gpio_out(unsigned pin)
{
	(void)pin;
	return false;                                   /* nor a GPIO output */
}

void xt_gpio_flip(void)
{
}

bool xt_timer_oneshot(uint64_t deadline_counter, void (*h)(uint64_t now))
{
	if (x86_cpl())
		return x86_syscall(X86_SYS_TIMER, (long)deadline_counter, (long)h, 0);
	return x86_lapic_timer_arm(deadline_counter, h);
}
