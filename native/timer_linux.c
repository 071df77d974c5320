/* timer_linux.c - xt_timer_oneshot for the native program: the hosted analogue of a
 * one-shot timer interrupt is a POSIX timer (timer_create on CLOCK_MONOTONIC,
 * SIGEV_SIGNAL with SIGALRM) whose signal handler reads the counter first thing and
 * calls the bench's handler. So a native timer latency is hrtimer expiry -> signal
 * delivery to the (spinning) process -> handler entry, which is what a bare-machine
 * Linux process sees (cyclictest measures the same path with a sleep instead).
 *
 * The deadline is a counter value; it is converted to a relative CLOCK_MONOTONIC
 * interval with the counter frequency (xt_counter_hz(): calibrated against
 * CLOCK_MONOTONIC_RAW). CLOCK_MONOTONIC may be slewed by NTP (up to 500 ppm), so the
 * signal may come a little early in counter time: then the rest is re-armed, and the
 * handler never runs before its deadline (as lapic.c does with an early one-shot).
 * Caveats: POSIX timers are not subject to timer slack; the process must not block
 * SIGALRM or use alarm(); the handler runs on the current stack (sched_metric's thread
 * stacks are large enough for a signal frame). */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include <time.h>
#include "xt.h"

static enum { UNINIT, ABSENT, READY } state;
static timer_t timer;
static volatile uint64_t armed_deadline;
static void (*volatile handler)(uint64_t now);

static void program(uint64_t deadline, uint64_t now)
{
	uint64_t hz = xt_counter_hz();
	uint64_t delta = deadline > now ? deadline - now : 0;
	uint64_t ns = hz ? (uint64_t)((double)delta * 1e9 / (double)hz) : 0;
	struct itimerspec its;

	memset(&its, 0, sizeof(its));
	if (ns == 0)
		ns = 1;                                 /* 0 would disarm: fire at once */
	its.it_value.tv_sec = (time_t)(ns / 1000000000ull);
	its.it_value.tv_nsec = (long)(ns % 1000000000ull);
	timer_settime(timer, 0, &its, NULL);
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	uint64_t now = xt_counter();
	void (*h)(uint64_t);

	(void)sig;
	(void)uc;
	if (si->si_code != SI_TIMER)                    /* someone else's SIGALRM */
		return;
	h = handler;
	if (!h)                                         /* cancelled, or a stale signal */
		return;
	if (now < armed_deadline) {                     /* early in counter time */
		program(armed_deadline, now);
		return;
	}
	handler = NULL;
	h(now);
}

static void init(void)
{
	struct sigevent sev;
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_SIGNAL;
	sev.sigev_signo = SIGALRM;
	if (!xt_counter_hz() || sigaction(SIGALRM, &sa, NULL) < 0 ||
	    timer_create(CLOCK_MONOTONIC, &sev, &timer) < 0) {
		state = ABSENT;
		return;
	}
	state = READY;
}

bool xt_timer_oneshot(uint64_t deadline_counter, void (*h)(uint64_t now))
{
	struct itimerspec off;

	if (state == UNINIT)
		init();
	if (state == ABSENT)
		return false;
	handler = NULL;                                 /* no stale signal uses the new one */
	memset(&off, 0, sizeof(off));
	timer_settime(timer, 0, &off, NULL);
	if (!h)
		return true;
	armed_deadline = deadline_counter;
	handler = h;
	program(deadline_counter, xt_counter());
	return true;
}
