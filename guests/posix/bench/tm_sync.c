/* tm_sync.c - thread-metric synchronization processing: one thread takes and gives a
 * POSIX semaphore (sem_wait + sem_post, never blocking); count per pair. One thread:
 * no fairness check.
 */
#include <semaphore.h>
#include "rt.h"

static sem_t s;

static void setup(unsigned n)
{
	(void)n;
	sem_init(&s, 0, 1);
}

static void *worker(void *arg)
{
	(void)arg;
	while (!tm_stop) {
		sem_wait(&s);
		sem_post(&s);
		tm_count[0]++;
	}
	return NULL;
}

static int prio(unsigned i, unsigned n)
{
	(void)i;
	(void)n;
	return 1;
}

static const char *const keys[] = { "interval_s", NULL };
const struct rt_tm rt_tm_sync = {
	"tm_sync", keys, "sem_wait + sem_post by one thread",
	1, false, setup, worker, prio, NULL,
};
