/* rt.h - the POSIX real-time benchmark suite (xtalk-rt): hosted Linux programs with
 * pthreads, built natively and statically for the Linux-RT guest initramfs.
 *
 * The protocol side (parameters, XT lines, the sample ring, log2 histograms) is the
 * arch-neutral guests/lib code; platform_posix.c provides its platform.h on Linux with
 * CLOCK_MONOTONIC as the counter (freq_hz=1000000000: one tick = 1 ns).
 * Three kinds of benchmark, one per file in guests/posix/bench/:
 *   - latency (struct rt_lat, lat.c): kernel-operation latencies after the thesis
 *     Figure 3.3, one metric per operation, one sample per iteration (never averages);
 *   - thread-metric (struct rt_tm, tm.c): counts per interval per thread and a fairness
 *     check that fails the run;
 *   - tools (struct rt_tool): wrappers that run cyclictest / stress-ng.
 * Threads are SCHED_FIFO on the first CPU of cpus= unless a benchmark says otherwise;
 * a refusal (no privilege) is reported as XT META sched=other, and benchmarks that
 * depend on strict priorities then fail with a reason.
 */
#ifndef XT_RT_H
#define XT_RT_H
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdbool.h>
#include "xt.h"

#define RT_MAX_CPUS 64
#define RT_NS 1000000000ull

/* ---- platform_posix.c ---- */
void rt_platform_init(int argc, char **argv);   /* argv[1..] -> parameters */

/* ---- rt.c: environment ---- */
struct rt_env {
	int cpus[RT_MAX_CPUS];      /* cpus= (default: the first CPU we may run on) */
	int ncpus;
	int prio;                   /* priority= base SCHED_FIFO priority (default 50) */
	bool fifo;                  /* SCHED_FIFO was granted to the main thread */
	bool locked;                /* mlockall succeeded */
	bool measurer;
	uint64_t iterations;        /* iterations= (0: time-bounded) */
	uint64_t warmup;            /* warmup= unrecorded iterations */
	double duration_s;          /* duration_s= (0: none) */
	const char *role;
	char sched_why[96];         /* why SCHED_FIFO / mlockall were refused */
};
extern struct rt_env rt;

static inline uint64_t rt_now(void)
{
	return xt_counter();        /* CLOCK_MONOTONIC in ns (platform_posix.c) */
}
/* Resolves the common parameters (role= defaulting to default_role); mlockall; pins
 * the process to cpus[0] when pin; SCHED_FIFO at prio + main_rel for the calling (main)
 * thread. Prints nothing. */
void rt_setup(int main_rel, bool pin, const char *default_role);
void rt_meta_env(void);                         /* XT META overhead, then rt_meta_sched */
void rt_meta_sched(void);                       /* XT META sched, priority, mlock, cpus */
/* Starts a SCHED_FIFO thread at rt.prio + rel on cpu (-1: rt.cpus[0]); a failure
 * ends the run (status=fault). */
pthread_t rt_thread(void *(*fn)(void *), void *arg, int rel, int cpu);
void rt_set_self(int rel);                      /* the calling thread's priority */
void rt_fail(const char *reason) __attribute__((noreturn));   /* XT END status=fail */
void rt_fault(const char *what) __attribute__((noreturn));    /* with errno, status=fault */
void rt_sleep_until(uint64_t t_ns);             /* clock_nanosleep(TIMER_ABSTIME) */
int rt_parse_cpus(const char *s, int *out, int max);   /* "0,2-3" -> count or -1 */
bool rt_same_cpu(void);                         /* sched_getcpu() == rt.cpus[0] */
/* Waits until the console (a tty) has sent everything written so far: called before a
 * measured window, whose SCHED_FIFO threads would otherwise starve the serial port's
 * interrupt thread and hold XT BEGIN back until the window ends. No-op on a pipe. */
void rt_console_flush(void);

/* Suspend/resume of a thread (POSIX has none): a semaphore plus a pending flag, so
 * resuming a thread that is already resumed is a no-op, like tm_thread_resume. */
struct rt_gate {
	sem_t sem;
	int pending;
};
void rt_gate_init(struct rt_gate *g);
void rt_gate_suspend(struct rt_gate *g);        /* block until resumed */
void rt_gate_resume(struct rt_gate *g);

/* ---- lat.c: latency benchmarks ---- */
#define RT_LAT_MAX_METRICS 8
struct rt_lat {
	const char *name;
	const char *const *metrics;     /* metric names, NULL-terminated; values in ns */
	const struct xt_key *keys;      /* extra parameters, ended by XT_KEYS_END (may be NULL) */
	const char *method;             /* how it is measured (XT META method=) */
	void (*setup)(void);            /* threads and objects; rt_fail on error */
	void (*iter)(uint64_t *v);      /* one iteration: v[i] = ns of metric i */
	void (*teardown)(void);         /* may be NULL */
	uint64_t max_iterations;        /* default cap (0: RT_LAT_ITERATIONS) */
	uint64_t idle_us;               /* sleep after each iteration (0: none), see lat.c */
};
#define RT_LAT_ITERATIONS 10000
/* Runs benches in order, metric ids consecutive; each gets share of duration_s. */
int rt_lat_run(const struct rt_lat *const *benches, unsigned n);
/* The catalogue entry (catalogue.c) of benches run as one bench name with keys. */
void rt_lat_catalogue(const char *name, const struct rt_lat *const *benches, unsigned n,
		      const struct xt_key *keys);

/* ---- tm.c: thread-metric throughput tests ---- */
#define TM_MAX_THREADS 16
extern volatile uint64_t tm_count[TM_MAX_THREADS];
extern volatile int tm_stop;
struct rt_tm {
	const char *name;
	const char *method;
	unsigned nthreads;              /* default threads (threads= when tunable) */
	bool tunable;
	void (*setup)(unsigned n);      /* objects; rt_fail on error (may be NULL) */
	void *(*thread)(void *arg);     /* arg = (void *)(uintptr_t)index; NULL: op's loop */
	int (*prio)(unsigned i, unsigned n);   /* relative priority (>= 1) of thread i; NULL: 1 */
	const char *(*check)(void);     /* integrity each interval: NULL ok, else reason */
	void (*op)(void);               /* one-thread test without thread: its thread loops
	                                 * { op(); tm_count[0]++; } until the end */
};
int rt_tm_run(const struct rt_tm *t);
/* The test's parameters: interval_s; fair_pct and starve with two threads or more;
 * threads when tunable. Valid until the next call. */
const struct xt_key *rt_tm_keys(const struct rt_tm *t);
void rt_tm_catalogue(const struct rt_tm *t);    /* its catalogue entry (catalogue.c) */

/* ---- tools (cyclictest.c, hackbench.c, stress_ng.c) ---- */
struct rt_tool {
	const char *name;
	const char *role;               /* default role */
	const struct xt_key *keys;
	int (*run)(void);               /* prints BEGIN .. END itself */
	const char *metric;             /* its metric (unit cycles = ns), <N> the thread;
	                                 * NULL: none */
	const char *kind;               /* the metric's kind (latency, duration) */
};
/* Runs argv with stdout (and stderr) to out_path (NULL: inherit); returns the exit
 * status (128 + signal when killed), -1 when it could not be started. */
int rt_spawn_wait(char *const argv[], const char *out_path);
/* XT BEGIN of tool name (role rt.role, ns counter), rt_meta_env, then XT META
 * cmd="argv joined with spaces" (and method="..." unless method is NULL). */
void rt_tool_begin(const char *name, char *const argv[], const char *method);

/* ---- json.c: a small JSON walker (cyclictest --json) ---- */
/* Calls fn(path, value) for each scalar; path like "thread.0.histogram.12". Returns
 * false on a syntax error. */
bool rt_json_walk(const char *text, void (*fn)(const char *path, const char *value, void *ctx),
		  void *ctx);
#endif
