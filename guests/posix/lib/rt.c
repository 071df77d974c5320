/* rt.c - the real-time environment of the POSIX suite: common parameters (cpus=,
 * priority=, iterations=, warmup=, duration_s=), mlockall, CPU pinning, SCHED_FIFO
 * threads, failure exits, and the suspend/resume gate.
 *
 * Priorities are relative to priority= (default 50, so thread-metric's five levels,
 * a starved level below them and a reporter above them all fit in 1..99). Every
 * thread is pinned to one CPU (default cpus[0]) so context switches really happen
 * between the benchmark's threads. When SCHED_FIFO is refused (EPERM: not root, no
 * CAP_SYS_NICE or RLIMIT_RTPRIO) the threads run SCHED_OTHER and rt.fifo is false.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include "rt.h"

#define RT_STACK (256 * 1024)

struct rt_env rt;

int rt_parse_cpus(const char *s, int *out, int max)
{
	int n = 0;

	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b;

		if (end == s || a < 0 || a >= CPU_SETSIZE)
			return -1;
		b = a;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1 || b < a || b >= CPU_SETSIZE)
				return -1;
			s = end;
		}
		for (long c = a; c <= b; c++) {
			if (n >= max)
				return -1;
			out[n++] = (int)c;
		}
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return n;
}

static int first_allowed_cpu(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set))
				return c;
	return 0;
}

static bool set_fifo(pthread_t t, int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	int err = pthread_setschedparam(t, SCHED_FIFO, &sp);

	if (err && !rt.sched_why[0])
		snprintf(rt.sched_why, sizeof(rt.sched_why), "SCHED_FIFO %d: %s", prio, strerror(err));
	return err == 0;
}

void rt_setup(int main_rel, bool pin, const char *default_role)
{
	const char *cpus = xt_key_str("cpus");

	rt.role = xt_param_str("role", default_role);
	rt.measurer = !strcmp(rt.role, "measurer");
	rt.prio = (int)xt_key_u64("priority");
	rt.duration_s = xt_key_double("duration_s");
	rt.iterations = xt_param_u64("iterations", 0);
	rt.warmup = xt_key_u64("warmup");
	if (cpus) {
		rt.ncpus = rt_parse_cpus(cpus, rt.cpus, RT_MAX_CPUS);
		if (rt.ncpus <= 0)
			xt_badparam("cpus", "expected a CPU list like 0 or 0,2-3");
	} else {
		rt.cpus[0] = first_allowed_cpu();
		rt.ncpus = 1;
	}
	if (mlockall(MCL_CURRENT | MCL_FUTURE) == 0)
		rt.locked = true;
	else
		snprintf(rt.sched_why, sizeof(rt.sched_why), "mlockall: %s", strerror(errno));
	if (pin) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(rt.cpus[0], &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0) {
			char msg[80];
			snprintf(msg, sizeof(msg), "cannot run on CPU %d: %s", rt.cpus[0], strerror(errno));
			xt_badparam("cpus", msg);
		}
	}
	rt.fifo = set_fifo(pthread_self(), rt.prio + main_rel);
}

void rt_meta_env(void)
{
	uint64_t d[101];

	for (int i = 0; i < 101; i++) {
		uint64_t a = rt_now();
		d[i] = rt_now() - a;
	}
	xt_sort_u64(d, 101);
	xt_meta("overhead_cycles=%lu", (unsigned long)d[50]);
	rt_meta_sched();
}

void rt_meta_sched(void)
{
	xt_meta("sched=%s priority=%d mlockall=%s cpu=%d cpus_online=%ld clock=CLOCK_MONOTONIC",
		rt.fifo ? "fifo" : "other", rt.prio, rt.locked ? "yes" : "no", rt.cpus[0],
		sysconf(_SC_NPROCESSORS_ONLN));
	if (rt.sched_why[0])
		xt_meta("sched_refused=\"%s\"", rt.sched_why);
}

pthread_t rt_thread(void *(*fn)(void *), void *arg, int rel, int cpu)
{
	pthread_attr_t a;
	struct sched_param sp = { .sched_priority = rt.prio + rel };
	cpu_set_t set;
	pthread_t t;
	int err;

	CPU_ZERO(&set);
	CPU_SET(cpu < 0 ? rt.cpus[0] : cpu, &set);
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, RT_STACK);   /* small: mlockall populates stacks */
	pthread_attr_setaffinity_np(&a, sizeof(set), &set);
	if (rt.fifo) {
		pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&a, SCHED_FIFO);
		pthread_attr_setschedparam(&a, &sp);
	}
	err = pthread_create(&t, &a, fn, arg);
	pthread_attr_destroy(&a);
	if (err) {
		errno = err;
		rt_fault("pthread_create");
	}
	return t;
}

void rt_set_self(int rel)
{
	if (rt.fifo)
		set_fifo(pthread_self(), rt.prio + rel);
}

bool rt_same_cpu(void)
{
	return sched_getcpu() == rt.cpus[0];
}

void rt_console_flush(void)
{
	if (isatty(1))
		tcdrain(1);
}

void rt_fail(const char *reason)
{
	xt_ring_drain();
	xt_end(XT_FAIL, rt.measurer, reason);
}

void rt_fault(const char *what)
{
	static char msg[160];

	snprintf(msg, sizeof(msg), "%s: %s", what, strerror(errno));
	xt_error(NULL, msg);
	xt_end(XT_FAULT, false, msg);
}

void rt_sleep_until(uint64_t t_ns)
{
	struct timespec ts = { .tv_sec = (time_t)(t_ns / RT_NS), .tv_nsec = (long)(t_ns % RT_NS) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

void rt_gate_init(struct rt_gate *g)
{
	sem_init(&g->sem, 0, 0);
	g->pending = 0;
}

void rt_gate_suspend(struct rt_gate *g)
{
	while (sem_wait(&g->sem) && errno == EINTR)
		;
	__atomic_store_n(&g->pending, 0, __ATOMIC_SEQ_CST);
}

void rt_gate_resume(struct rt_gate *g)
{
	if (!__atomic_exchange_n(&g->pending, 1, __ATOMIC_SEQ_CST))
		sem_post(&g->sem);
}
