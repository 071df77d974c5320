/* tm_interrupt.c - thread-metric interrupt processing: one thread raises a signal at
 * itself (pthread_kill SIGUSR1, the "software interrupt"); the handler (the "ISR")
 * counts and posts a semaphore; the thread takes the semaphore and counts. Signal
 * driven, delivered on return from the pthread_kill system call. Integrity check: the
 * handler and thread counts differ by at most 1. One thread: no fairness check.
 */
#include <errno.h>
#include <semaphore.h>
#include <signal.h>
#include "rt.h"

static sem_t s;
static volatile uint64_t isr_count;

static void isr(int sig)
{
	(void)sig;
	isr_count++;
	sem_post(&s);
}

static void setup(unsigned n)
{
	struct sigaction sa = { .sa_handler = isr };

	(void)n;
	sem_init(&s, 0, 0);
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL))
		rt_fault("sigaction");
}

static void op(void)
{
	pthread_kill(pthread_self(), SIGUSR1);
	while (sem_wait(&s) && errno == EINTR)
		;
}

static const char *check(void)
{
	uint64_t a = isr_count, b = tm_count[0];
	return a > b + 1 || b > a + 1 ? "handler and thread counts differ" : NULL;
}

const struct rt_tm rt_tm_interrupt = {
	.name = "tm_interrupt", .nthreads = 1, .setup = setup, .op = op, .check = check,
	.method = "pthread_kill(self, SIGUSR1); handler sem_post; thread sem_wait",
};
