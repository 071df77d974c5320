/* thread.c - thread create / start / terminate (thesis Figure 3.3: "create a new
 * thread (without starting it)", "start a newly created thread", "abort a thread").
 *
 * POSIX has no "created but not started" state, so:
 * thread_create:        pthread_create of a thread at priority-1 (below main): it is
 *                       created and made ready but does not run (no switch).
 * thread_start:         main blocks in pthread_join; value = the new thread's first
 *                       stamp - main's stamp before pthread_join (first switch into it).
 * thread_terminate:     the thread's last stamp before returning - main's stamp when
 *                       pthread_join returns (exit, reap, switch back).
 * thread_create_switch: pthread_create of a thread at priority+1: main's stamp before
 *                       the call - the new thread's first stamp (create + preempt).
 * Threads: SCHED_FIFO, pinned to one CPU, 256 KiB stacks (glibc caches them; warmup=
 * iterations keep stack allocation out of the measured ones). 2000 iterations by
 * default, with 200 us of idle time after each: exited threads are freed by
 * lower-priority kernel threads (RCU on PREEMPT_RT), which must get to run.
 */
#include "rt.h"

static volatile uint64_t t_first, t_last;

static void *child(void *arg)
{
	(void)arg;
	t_first = rt_now();
	t_last = rt_now();
	return NULL;
}

static void setup(void)
{
}

static void iter(uint64_t *v)
{
	uint64_t t0 = rt_now(), t1, t2, t3, t4;
	pthread_t t = rt_thread(child, NULL, -1, -1);

	t1 = rt_now();
	t2 = rt_now();
	pthread_join(t, NULL);
	t3 = rt_now();
	v[0] = t1 - t0;
	v[1] = t_first > t2 ? t_first - t2 : 0;
	v[2] = t3 > t_last ? t3 - t_last : 0;
	t4 = rt_now();
	t = rt_thread(child, NULL, 1, -1);
	v[3] = t_first > t4 ? t_first - t4 : 0;
	pthread_join(t, NULL);
}

static const char *const metrics[] = { "thread_create", "thread_start", "thread_terminate",
				      "thread_create_switch", NULL };
const struct rt_lat rt_lat_thread = {
	"thread", metrics, NULL, "pthread_create/join of SCHED_FIFO threads below and above main on one CPU",
	setup, iter, NULL, 2000, 200,
};
