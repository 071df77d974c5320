/* smp_linux.c - platform.h's vCPUs for the hosted Linux programs (xtalk-bench natively,
 * xtalk-rt): a "vCPU" is a thread.
 *
 * xt_cpu_start(v, fn, arg) starts a detached pthread that runs fn(arg) with
 * xt_cpu_index() == v (a thread-local index), pinned to the v-th CPU of vcpu_cpus=
 * ("0,1", from the native backend: each vCPU's CPU as the spec places it) when that is
 * given, else left on the process's CPUs. The boot thread is vCPU 0: the native backend
 * starts the process pinned to vCPU 0's CPU, and the first start pins it there too (a
 * caller that did not pin the process otherwise finds vCPU 0 spinning on vCPU 1's CPU,
 * which then runs vCPU 1 a 4 ms tick later); each other thread moves itself to its
 * own. Caveats: a thread that fails to pin still runs where it was; when fn returns,
 * the thread ends (a process has no CPU to park).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include "xt.h"

static __thread unsigned my_index;

unsigned xt_cpu_index(void)
{
	return my_index;
}

/* The CPU vcpu_cpus= names for vCPU v, or -1 when it names none. */
static int cpu_of(unsigned v)
{
	const char *p = xt_param_str("vcpu_cpus", "");

	for (unsigned i = 0; *p; i++) {
		char *end;
		long cpu = strtol(p, &end, 10);
		if (end == p || cpu < 0)
			return -1;
		if (i == v)
			return (int)cpu;
		p = *end == ',' ? end + 1 : end;
	}
	return -1;
}

static void pin_self(unsigned v)
{
	int cpu = cpu_of(v);
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	(void)pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

struct start {
	unsigned index;
	void (*fn)(void *);
	void *arg;
	volatile int running;
};

static void *thread_main(void *p)
{
	struct start *s = p;
	void (*fn)(void *) = s->fn;
	void *arg = s->arg;

	my_index = s->index;
	pin_self(my_index);
	__atomic_store_n(&s->running, 1, __ATOMIC_RELEASE);
	fn(arg);
	return NULL;
}

bool xt_cpu_start(unsigned cpu, void (*fn)(void *), void *arg)
{
	struct start s = { cpu, fn, arg, 0 };
	pthread_attr_t attr;
	pthread_t t;
	int err;

	if (cpu == 0 || cpu >= XT_MAX_CPUS)
		return false;
	pin_self(0);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	err = pthread_create(&t, &attr, thread_main, &s);
	pthread_attr_destroy(&attr);
	if (err)
		return false;
	while (!__atomic_load_n(&s.running, __ATOMIC_ACQUIRE))
		sched_yield();
	return true;
}
