/* suspend.c - thread suspend and resume (thesis Figure 3.3: "suspend a thread",
 * "resume a suspended thread").
 *
 * POSIX has no thread suspend: it is a mutex + condition variable + flag (the helper
 * suspends itself by waiting on the condvar until the flag is cleared; resume clears
 * the flag and signals, after unlocking so the woken thread does not block on the
 * mutex). The helper runs at priority+1, main at priority+0, one CPU.
 * thread_resume:  main's stamp before resume - the helper's stamp when it runs again.
 * thread_suspend: the helper's stamp before suspending - main's stamp when it runs.
 */
#include "rt.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int suspended;
static volatile uint64_t t_susp, t_res;
static volatile int stop;
static pthread_t helper;

static void *helper_main(void *arg)
{
	(void)arg;
	for (;;) {
		t_susp = rt_now();
		pthread_mutex_lock(&m);
		suspended = 1;
		while (suspended)
			pthread_cond_wait(&c, &m);
		pthread_mutex_unlock(&m);
		t_res = rt_now();
		if (stop)
			return NULL;
	}
}

static void resume(void)
{
	pthread_mutex_lock(&m);
	suspended = 0;
	pthread_mutex_unlock(&m);
	pthread_cond_signal(&c);
}

static void setup(void)
{
	stop = 0;
	helper = rt_thread(helper_main, NULL, 1, -1);   /* runs now and suspends itself */
}

static void iter(uint64_t *v)
{
	uint64_t t0 = rt_now(), t1;

	resume();                   /* helper preempts, stamps, suspends again */
	t1 = rt_now();
	v[0] = t_res > t0 ? t_res - t0 : 0;
	v[1] = t1 > t_susp ? t1 - t_susp : 0;
}

static void teardown(void)
{
	stop = 1;
	resume();
	pthread_join(helper, NULL);
}

static const char *const metrics[] = { "thread_resume", "thread_suspend", NULL };
const struct rt_lat rt_lat_suspend = {
	"suspend", metrics, NULL, "self-suspend on a condvar (mutex+condvar+flag), resume by a priority-0 thread, one CPU",
	setup, iter, teardown, 0, 0,
};
