/* lock.c - measurer: the vCPUs of one guest take turns on a shared ticket spinlock
 * (seed 003's lock-holder preemption channel).
 *
 * Runs on every vCPU of a guest with several (vcpus=N, N >= 2). Each vCPU loops: take a
 * ticket, wait for its turn, hold the lock hold_us= (default 1) of counter time, release,
 * then wait think_us= (default 1) outside it. Two metrics per vCPU (driver.c names them
 * <metric>_vcpu<v>):
 *   lock_acquire   counter ticks from taking the ticket to owning the lock
 *   lock_handover  from the previous holder's release to this vCPU owning the lock, when
 *                  the previous holder was another vCPU (the lock's handover time)
 * A waiter spins with `pause` on x86-64 (what pause-loop exiting watches); on arm64 it
 * waits in WFE on an exclusive load of the owner word, woken by the releaser's store, as
 * Linux's arm64 spinlocks do (what a hypervisor's trap-on-WFE watches). Known answers:
 * two vCPUs stacked on one physical CPU hand over in about a scheduler time slice (the
 * waiter spins away its slice while the holder is descheduled); spread on two CPUs in
 * well under a microsecond; a neighbour preempting the holder's CPU stretches the
 * acquisition tail by its time slices. Caveats: counters are compared across vCPUs (an
 * invariant TSC, arm64's generic timer); samples are written after the release, so the
 * ring's own publication order (ring.c) is never inside a measured span or the lock.
 */
#include "xt.h"

static const struct xt_key keys[] = {
	{ "hold_us", XT_DOUBLE, "[0,1e6]", "1" },
	{ "think_us", XT_DOUBLE, "[0,1e6]", "1" },
	XT_KEYS_END
};

#define LINE 128   /* apart, so waiting on one word does not bounce the others */
static struct {
	volatile uint32_t next;                   /* the next ticket */
	char pad0[LINE - 4];
	volatile uint32_t owner;                  /* the ticket that owns the lock */
	char pad1[LINE - 4];
	volatile uint64_t released;               /* counter at the last release */
	volatile uint32_t holder;                 /* vCPU + 1 of the last holder, 0: none yet */
} lk __attribute__((aligned(LINE)));
static uint64_t hold, think;

static int setup(void)
{
	if (xt_vcpus() < 2)
		xt_badparam("vcpus", "the lock bench needs a guest with at least two vCPUs (vcpus=2)");
	if (!xt_cfg.freq_hz)
		xt_badparam("hold_us", "needs the counter frequency (pass freq_hz)");
	hold = (uint64_t)(xt_key_double("hold_us") * (double)xt_cfg.freq_hz / 1e6);
	think = (uint64_t)(xt_key_double("think_us") * (double)xt_cfg.freq_hz / 1e6);
	return XT_PASS;
}

/* Waits until ticket `mine` owns the lock (acquire ordering). */
static void wait_turn(uint32_t mine)
{
#if defined(__aarch64__)
	uint32_t owner;

	for (;;) {
		__asm__ __volatile__("ldaxr %w0, [%1]" : "=&r"(owner) : "r"(&lk.owner) : "memory");
		if (owner == mine)
			return;
		__asm__ __volatile__("wfe" ::: "memory");
	}
#else
	while (__atomic_load_n(&lk.owner, __ATOMIC_ACQUIRE) != mine)
		xt_cpu_relax();
#endif
}

static void spin_until(uint64_t t)
{
	while (xt_counter() < t)
		xt_barrier();
}

static long run(void *unused)
{
	const uint32_t me = xt_cpu_index() + 1, base = xt_cfg.metric_base;
	const uint64_t iters = xt_cfg.iterations, first = xt_counter();
	const uint64_t end = xt_cfg.duration_ticks ? first + xt_cfg.duration_ticks : UINT64_MAX;
	uint64_t n = 0, t0, t1 = first, t2, rel;
	uint32_t mine, prev;

	(void)unused;
	if (xt_cfg.metric != base) {      /* case 0's loop made both metrics' samples */
		xt_cfg.window_ticks = xt_cfg.window_ticks_of[0];
		return XT_PASS;
	}
	while ((!iters || n < iters) && t1 < end) {
		t0 = xt_counter();
		mine = __atomic_fetch_add(&lk.next, 1, __ATOMIC_RELAXED);
		wait_turn(mine);
		t1 = xt_counter();
		prev = lk.holder;
		rel = lk.released;
		lk.holder = me;
		spin_until(t1 + hold);
		t2 = xt_counter();
		lk.released = t2;
		__atomic_store_n(&lk.owner, mine + 1, __ATOMIC_RELEASE);
		xt_sample(base, t1, t1 - t0, 0);
		if (prev && prev != me && t1 > rel)
			xt_sample(base + 1, t1, t1 - rel, 0);
		n++;
		spin_until(t2 + think);
	}
	xt_cfg.done = n;
	xt_cfg.window_ticks = t1 - first;
	return XT_PASS;
}

static const struct xt_case cases[] = {
	{ "lock_acquire", "cycles", NULL, NULL, NULL, NULL, 100000, "latency" },
	{ "lock_handover", "cycles", NULL, NULL, NULL, NULL, 100000, "latency" },
};

const struct xt_bench xt_bench_lock = {
	.name = "lock", .role = "measurer", .keys = keys, .setup = setup,
	.cases = cases, .ncases = sizeof(cases) / sizeof(cases[0]), .run = run,
	.kpi = "kernel", .smp = true,
};
