/* tm_preempt.c - thread-metric preemptive scheduling (thesis section 3.4.3, Listing
 * 3.3): 5 threads at rising priorities (thread 0 lowest, priority+1 .. priority+5) on
 * one CPU. Thread 0 loops { resume(1); count0++; }; thread i (1..3) loops { suspend
 * self; resume(i+1); count_i++; } and thread 4 { suspend self; count4++; }, so every
 * resume preempts and one round is 4 preemptions and 4 self-suspensions; all counters
 * advance in step. Suspend/resume is rt_gate (semaphore + pending flag; resuming a
 * running thread is a no-op). Count per interval: metric 0 total (what the thesis
 * plotted), 1+i per thread. starve=K puts thread K below all others: the chain stops
 * there and the fairness check fails, as Thread-Metric's check would.
 */
#include "rt.h"

#define N 5
static struct rt_gate gate[N];

static void setup(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		rt_gate_init(&gate[i]);
}

static void *worker(void *arg)
{
	unsigned i = (unsigned)(uintptr_t)arg;

	if (i == 0) {
		while (!tm_stop) {
			rt_gate_resume(&gate[1]);
			tm_count[0]++;
		}
		return NULL;
	}
	for (;;) {
		rt_gate_suspend(&gate[i]);
		if (i + 1 < N)
			rt_gate_resume(&gate[i + 1]);
		tm_count[i]++;
	}
	return NULL;
}

static int prio(unsigned i, unsigned n)
{
	(void)n;
	return 1 + (int)i;
}

const struct rt_tm rt_tm_preempt = {
	.name = "tm_preempt", .nthreads = N, .setup = setup, .thread = worker,
	.prio = prio,
	.method = "5 SCHED_FIFO threads at rising priorities; resume(next), count++, suspend(self)",
};
