/* pointer_chase.c - measurer: memory latency by dependent loads over a random cycle.
 *
 * size= bytes (default l2*4: past the core's private caches, in the shared last-level
 * cache where a neighbour's traffic evicts it; llc*2 misses every level) are cut into 64-byte nodes,
 * one per cache line, linked in a random single cycle (shuffled order from seed=, so
 * hardware prefetchers cannot follow it). A sample = counter ticks for steps= dependent
 * loads (default 1<<20); per-load latency = value / steps (META steps=). The walk
 * continues where the previous iteration stopped.
 * Caveats: assumes 64-byte lines (128-byte-line CPUs get two nodes per line); TLB
 * misses are part of the latency (native uses transparent huge pages where the kernel
 * grants them; guests use their own page size); size is rounded down to whole nodes.
 */
#include "xt.h"

struct node {
	struct node *next;
	char pad[64 - sizeof(struct node *)];
};

static const struct xt_key keys[] = {
	{ "size", XT_SIZE, "[128,256g)", "l2*4" },      /* 2 .. 2^32 - 1 nodes */
	{ "steps", XT_U64, "[1,)", "1048576" },
	{ "seed", XT_U64, NULL, "1" },
	XT_KEYS_END
};
static struct node *nodes, *cursor;
static uint32_t *order;
static uint64_t nnodes, steps, seed;

static int setup(void)
{
	nnodes = xt_key_size("size") / sizeof(struct node);
	steps = xt_key_u64("steps");
	seed = xt_key_u64("seed");
	nodes = xt_alloc(nnodes * sizeof(struct node));
	order = xt_alloc(nnodes * sizeof(uint32_t));
	if (!nodes || !order) {
		xt_set_reason("out of memory for the pointer chase");
		return XT_FAIL;
	}
	xt_meta("nodes=%lu bytes=%lu steps=%lu", (unsigned long)nnodes,
		(unsigned long)(nnodes * sizeof(struct node)), (unsigned long)steps);
	return XT_PASS;
}

/* Fisher-Yates shuffle of the visiting order, then link order[i] -> order[i+1] and the
 * last back to the first: one cycle through every node. */
static int prep(void)
{
	struct xt_rng r;

	xt_rng_seed(&r, seed);
	for (uint64_t i = 0; i < nnodes; i++)
		order[i] = (uint32_t)i;
	for (uint64_t i = nnodes - 1; i > 0; i--) {
		uint64_t j = xt_rng_below(&r, i + 1);
		uint32_t t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (uint64_t i = 0; i + 1 < nnodes; i++)
		nodes[order[i]].next = &nodes[order[i + 1]];
	nodes[order[nnodes - 1]].next = &nodes[order[0]];
	cursor = &nodes[order[0]];
	return XT_PASS;
}

static void exec(void)
{
	struct node *p = cursor;

	for (uint64_t s = steps; s; s--)
		p = p->next;
	cursor = p;
}

/* The walk must still be on the cycle: nnodes steps from cursor return to it. */
static int post(void)
{
	struct node *p = cursor;
	uint64_t n = 0;

	do {
		p = p->next;
		n++;
	} while (p != cursor && n <= nnodes);
	if (n != nnodes) {
		xt_set_reason("pointer chase cycle is broken");
		return XT_FAIL;
	}
	return XT_PASS;
}

static const struct xt_case cases[] = {
	{ "pointer_chase", "cycles", prep, NULL, exec, post, 20, "duration" },
};

const struct xt_bench xt_bench_pointer_chase = {
	.name = "pointer_chase", .role = "measurer", .keys = keys, .setup = setup,
	.cases = cases, .ncases = sizeof(cases) / sizeof(cases[0]),
	.kpi = "memory",
};
