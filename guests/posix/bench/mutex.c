/* mutex.c - mutex lock and unlock (thesis Figure 3.3: "lock a mutex then unlock that
 * mutex"), uncontended, on the main thread.
 *
 * mutex_lock / mutex_unlock: the duration of pthread_mutex_lock / _unlock each.
 * pi=1 uses a priority-inheritance mutex (PTHREAD_PRIO_INHERIT: the kernel's rt_mutex
 * on contention; uncontended it stays in user space like the default one).
 */
#include "rt.h"

static pthread_mutex_t m;

static void setup(void)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	if (xt_key_bool("pi"))
		pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(&m, &a);
	pthread_mutexattr_destroy(&a);
}

static void iter(uint64_t *v)
{
	uint64_t t0 = rt_now(), t1, t2;

	pthread_mutex_lock(&m);
	t1 = rt_now();
	pthread_mutex_unlock(&m);
	t2 = rt_now();
	v[0] = t1 - t0;
	v[1] = t2 - t1;
}

static void teardown(void)
{
	pthread_mutex_destroy(&m);
}

static const char *const metrics[] = { "mutex_lock", "mutex_unlock", NULL };
static const struct xt_key keys[] = { { "pi", XT_BOOL, NULL, "0" }, XT_KEYS_END };
const struct rt_lat rt_lat_mutex = {
	"mutex", metrics, keys, "pthread_mutex_lock/unlock, uncontended (pi=1: PTHREAD_PRIO_INHERIT)",
	setup, iter, teardown, 0, 0,
};
