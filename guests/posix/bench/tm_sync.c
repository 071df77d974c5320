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

static void op(void)
{
	sem_wait(&s);
	sem_post(&s);
}

const struct rt_tm rt_tm_sync = {
	.name = "tm_sync", .nthreads = 1, .setup = setup, .op = op,
	.method = "sem_wait + sem_post by one thread",
};
