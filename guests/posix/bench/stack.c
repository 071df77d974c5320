/* stack.c - stack and queue push/pop (thesis Figure 3.3: "push and pop to/from a
 * k_stack", "add/retrieve data to/from a fifo/LIFO" without a waiter).
 *
 * User-space kernel-object analogues: a bounded LIFO and a bounded ring FIFO of
 * pointers, each guarded by a pthread mutex (as k_stack/k_queue are by a spinlock).
 * stack_push / stack_pop / queue_put / queue_get: each call timed on its own.
 */
#include "rt.h"

#define CAP 64
struct stack { pthread_mutex_t m; void *v[CAP]; unsigned n; };
struct queue { pthread_mutex_t m; void *v[CAP]; unsigned head, tail; };
static struct stack s = { PTHREAD_MUTEX_INITIALIZER, { 0 }, 0 };
static struct queue q = { PTHREAD_MUTEX_INITIALIZER, { 0 }, 0, 0 };

static __attribute__((noinline)) int push(void *p)
{
	int ok;
	pthread_mutex_lock(&s.m);
	if ((ok = s.n < CAP))
		s.v[s.n++] = p;
	pthread_mutex_unlock(&s.m);
	return ok;
}

static __attribute__((noinline)) void *pop(void)
{
	void *p = NULL;
	pthread_mutex_lock(&s.m);
	if (s.n)
		p = s.v[--s.n];
	pthread_mutex_unlock(&s.m);
	return p;
}

static __attribute__((noinline)) int put(void *p)
{
	int ok;
	pthread_mutex_lock(&q.m);
	if ((ok = q.tail - q.head < CAP))
		q.v[q.tail++ % CAP] = p;
	pthread_mutex_unlock(&q.m);
	return ok;
}

static __attribute__((noinline)) void *get(void)
{
	void *p = NULL;
	pthread_mutex_lock(&q.m);
	if (q.head != q.tail)
		p = q.v[q.head++ % CAP];
	pthread_mutex_unlock(&q.m);
	return p;
}

static void setup(void)
{
}

static void iter(uint64_t *v)
{
	uint64_t t0 = rt_now(), t1, t2, t3, t4;
	void *x;

	push(&s);
	t1 = rt_now();
	x = pop();
	t2 = rt_now();
	put(&q);
	t3 = rt_now();
	x = get();
	t4 = rt_now();
	xt_keep(x);
	v[0] = t1 - t0;
	v[1] = t2 - t1;
	v[2] = t3 - t2;
	v[3] = t4 - t3;
}

static const char *const metrics[] = { "stack_push", "stack_pop", "queue_put", "queue_get", NULL };
const struct rt_lat rt_lat_stack = {
	"stack", metrics, NULL, "mutex-guarded bounded LIFO and ring FIFO of pointers",
	setup, iter, NULL, 0, 0,
};
