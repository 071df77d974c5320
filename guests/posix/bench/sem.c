/* sem.c - semaphore signal/wait with and without a context switch (thesis Figure 3.3:
 * "signal a semaphore then test that semaphore [with a context switch]").
 *
 * sem_signal_wait: sem_post + sem_wait on the main thread's own semaphore (no switch).
 * sem_give_switch: main posts a semaphore a higher-priority helper (priority+1) waits
 *   on; value = helper's stamp after sem_wait returns - main's stamp before sem_post.
 * sem_take_switch: the helper waits on the empty semaphore again (blocks); value =
 *   main's stamp when it runs again - helper's stamp before sem_wait.
 * POSIX unnamed semaphores (futex based), all threads SCHED_FIFO on one CPU.
 */
#include <errno.h>
#include <semaphore.h>
#include "rt.h"

static sem_t own, hs;
static volatile uint64_t t_wait, t_woke;
static volatile int stop;
static pthread_t helper;

static void *helper_main(void *arg)
{
	(void)arg;
	for (;;) {
		t_wait = rt_now();
		while (sem_wait(&hs) && errno == EINTR)
			;
		t_woke = rt_now();
		if (stop)
			return NULL;
	}
}

static void setup(void)
{
	stop = 0;
	sem_init(&own, 0, 0);
	sem_init(&hs, 0, 0);
	helper = rt_thread(helper_main, NULL, 1, -1);   /* runs now, blocks in sem_wait */
}

static void iter(uint64_t *v)
{
	uint64_t t0 = rt_now(), t1, t2, t3;

	sem_post(&own);
	sem_wait(&own);
	t1 = rt_now();
	t2 = rt_now();
	sem_post(&hs);              /* helper preempts, stamps, blocks again */
	t3 = rt_now();
	v[0] = t1 - t0;
	v[1] = t_woke > t2 ? t_woke - t2 : 0;
	v[2] = t3 > t_wait ? t3 - t_wait : 0;
}

static void teardown(void)
{
	stop = 1;
	sem_post(&hs);
	pthread_join(helper, NULL);
}

static const char *const metrics[] = { "sem_signal_wait", "sem_give_switch", "sem_take_switch", NULL };
const struct rt_lat rt_lat_sem = {
	"sem", metrics, NULL, "POSIX sem_post/sem_wait; switch cases with a priority+1 waiter on one CPU",
	setup, iter, teardown, 0, 0,
};
