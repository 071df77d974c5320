/* cache_probe.c - measurer: the cache hierarchy as it is (`xtalk host caches`).
 *
 * Latency of dependent loads against working-set size: size= ... are cut into 64-byte
 * nodes, one per line, linked in one page-aware random cycle (the 4 KiB pages in random
 * order, the lines of each page in random order: prefetchers cannot follow it, and a
 * TLB miss costs once per 64 loads, so the TLB's reach is not taken for a cache level).
 *   mode=curve: sizes from lo= (4k) to hi= (64m) on a logarithmic grid of per_octave= points; for
 *     each, the cycle is built, walked once untimed (min(nodes, 2^21) loads), then timed
 *     repeats= times. Ends after the last size, at duration_s=, or once the last two
 *     octaves are flat at 30x an L1 hit or more (memory: META memory_from=).
 *   mode=points: the cycles of sizes= (bytes, comma-separated, all in hi= bytes) and,
 *     with stream= bytes, a read pass over a buffer of that size, and with line= bytes
 *     the line test (line_test: a cycle over that many bytes with nodes 16 .. 512 bytes
 *     apart): one sample each, round after round, until duration_s= or iterations= rounds. Each cycle is walked three
 *     times untimed before its sample, since the others evicted it.
 * Samples: metric 0 (cache_probe_chase) = counter ticks for the point's loads, metric 1
 * (_stream) = ticks for one read pass, metric 2 (_line) = ticks for line_steps loads at one
 * stride; the three share one window (the loop's). Which point a sample belongs to follows from its seq: curve,
 * (seq / repeats) % measured_points (META); points, the order above. After the run META p<k>_bytes= p<k>_steps=
 * for each point (and stream_bytes=): latency per load = value / steps.
 * Caveats: 64-byte nodes (a 128-byte-line CPU gets two per line); a chase only (no
 * write-back traffic); the grid's sizes are rounded down to whole nodes. The numbers
 * are analysed by src/xtalk/host/cache_probe.py, not by the campaign analysis (its
 * metric 0 mixes sizes).
 */
#include "xt.h"

#define LINES 64                      /* 64-byte nodes per 4 KiB page */
#define GROUP 32                      /* pages whose lines are mixed (within the L1 TLB's reach) */
#define MAX_POINTS 160
#define MEMORY_X 30                   /* memory: at least 30x an L1 hit's latency */
#define WARM_MAX (1u << 21)
#define WARM_PASSES 3
#define STEPS_MIN 32768u
#define STEPS_MAX 262144u
#define STRIDES 6                     /* line test: nodes 16, 32, ... 512 bytes apart */
#define LINE_STEPS 32768u

struct node {
	struct node *next;
	char pad[64 - sizeof(struct node *)];
};

static const struct xt_key keys[] = {
	{ "mode", XT_WORD, "curve|points", "curve" },
	{ "lo", XT_SIZE, "[4k,)", "4k" },
	{ "hi", XT_SIZE, "[8k,256g)", "64m" },          /* xtalk host caches gives its own */
	{ "per_octave", XT_U64, "[1,16]", "6" },
	{ "repeats", XT_U64, "[1,100]", "3" },
	{ "rounds", XT_U64, "[1,100]", "2" },
	{ "sizes", XT_TEXT, NULL, "" },
	{ "stream", XT_SIZE, "[64,)", NULL },          /* none unless given */
	{ "line", XT_SIZE, "[4k,16m]", NULL },         /* none unless given */
	{ "seed", XT_U64, NULL, "1" },
	XT_KEYS_END
};
static struct node *nodes;
static uint32_t *pages, group_lines[GROUP * LINES];
static uint64_t *stream_buf;
static char *line_buf;
static uint32_t *line_order;
static uint64_t line_bytes;
static uint64_t point_nodes[MAX_POINTS], point_steps[MAX_POINTS], point_off[MAX_POINTS];
static unsigned npoints, repeats, rounds, per_octave, stopped;
static uint64_t fastest[MAX_POINTS];   /* curve: the fastest sample of each point */
static uint64_t stream_words, window;
static bool curve;
static struct xt_rng rng;

static uint64_t steps_for(uint64_t n)
{
	uint64_t s = 2 * n;

	return s < STEPS_MIN ? STEPS_MIN : s > STEPS_MAX ? STEPS_MAX : s;
}

/* The grid: lo * 2^(k / per_octave) up to hi, whole nodes, no size twice. */
static void grid(uint64_t lo, uint64_t hi, uint64_t octave_points)
{
	double step = 1.0, factor = 1.0;

	/* 2^(1/per_octave) by bisection on x^per_octave = 2 (no libm here) */
	for (double a = 1.0, b = 2.0; b - a > 1e-12;) {
		double m = (a + b) / 2, p = 1.0;

		for (uint64_t i = 0; i < octave_points; i++)
			p *= m;
		if (p < 2.0)
			a = m;
		else
			b = m;
		factor = a;
	}
	for (double size = (double)lo; size <= (double)hi * 1.0000001 && npoints < MAX_POINTS; size = (double)lo * step) {
		uint64_t n = (uint64_t)size / sizeof(struct node);

		if (!npoints || n > point_nodes[npoints - 1])
			point_nodes[npoints++] = n;
		step *= factor;
	}
}

/* sizes= "32768,786432,...": bytes, each at least two nodes. */
static int parse_points(const char *text)
{
	uint64_t v = 0;
	bool digits = false;

	for (const char *s = text;; s++) {
		if (*s >= '0' && *s <= '9') {
			v = v * 10 + (uint64_t)(*s - '0');
			digits = true;
		} else if ((*s == ',' || !*s) && digits && v >= 2 * sizeof(struct node) && npoints < MAX_POINTS) {
			point_nodes[npoints++] = v / sizeof(struct node);
			v = 0;
			digits = false;
			if (!*s)
				return XT_PASS;
		} else {
			return XT_BADPARAM;
		}
	}
}

static int setup(void)
{
	uint64_t hi = xt_key_size("hi"), total = 0, most = 0;

	curve = !xt_strcmp(xt_key_str("mode"), "curve");
	repeats = (unsigned)xt_key_u64("repeats");
	rounds = (unsigned)xt_key_u64("rounds");
	xt_rng_seed(&rng, xt_key_u64("seed"));
	if (curve) {
		if (xt_key_size("lo") > hi)
			xt_badparam("lo", "larger than hi");
		per_octave = (unsigned)xt_key_u64("per_octave");
		grid(xt_key_size("lo"), hi, per_octave);
	} else if (parse_points(xt_key_str("sizes")) != XT_PASS) {
		xt_badparam("sizes", "expected sizes in bytes, comma-separated, each at least 128, at most 160 of them");
	}
	for (unsigned k = 0; k < npoints; k++) {
		point_off[k] = curve ? 0 : total;
		total = curve ? point_nodes[k] : total + point_nodes[k];
		most = point_nodes[k] > most ? point_nodes[k] : most;
		point_steps[k] = steps_for(point_nodes[k]);
	}
	if (!curve && total * sizeof(struct node) > hi)
		xt_badparam("sizes", "their sum is more than hi= bytes");
	stream_words = xt_param_has("stream") ? xt_key_size("stream") / sizeof(uint64_t) / 4 * 4 : 0;
	nodes = xt_alloc(total * sizeof(struct node));
	pages = xt_alloc((most / LINES + 1) * sizeof(uint32_t));
	stream_buf = stream_words ? xt_alloc(stream_words * sizeof(uint64_t)) : NULL;
	line_bytes = xt_param_has("line") && !curve ? xt_key_size("line") : 0;
	line_buf = line_bytes ? xt_alloc(line_bytes) : NULL;
	line_order = line_bytes ? xt_alloc(line_bytes / 16 * sizeof(uint32_t)) : NULL;
	if (!nodes || !pages || (stream_words && !stream_buf) || (line_bytes && (!line_buf || !line_order))) {
		xt_set_reason("out of memory for the cache probe");
		return XT_FAIL;
	}
	xt_meta("mode=%s points=%u repeats=%u bytes=%lu", curve ? "curve" : "points", npoints, repeats,
		(unsigned long)(total * sizeof(struct node)));
	return XT_PASS;
}

static void shuffle(uint32_t *v, uint64_t n)
{
	if (n < 2)
		return;
	for (uint64_t i = n - 1; i > 0; i--) {
		uint64_t j = xt_rng_below(&rng, i + 1);
		uint32_t t = v[i];

		v[i] = v[j];
		v[j] = t;
	}
}

/* One cycle through base[0..n): the 4 KiB pages in random order, cut into groups of
 * GROUP pages; the lines of a group in random order (so no page is read line after line,
 * which a region prefetcher would follow, and the group's pages stay in the TLB). */
static struct node *link(struct node *base, uint64_t n)
{
	uint64_t np = (n + LINES - 1) / LINES;
	struct node *first = NULL, *prev = NULL;

	for (uint64_t p = 0; p < np; p++)
		pages[p] = (uint32_t)p;
	shuffle(pages, np);
	for (uint64_t g = 0; g < np; g += GROUP) {
		uint32_t count = 0;

		for (uint64_t i = g; i < np && i < g + GROUP; i++)
			for (uint64_t j = pages[i] * LINES; j < n && j < (pages[i] + 1) * LINES; j++)
				group_lines[count++] = (uint32_t)j;
		shuffle(group_lines, count);
		for (uint32_t j = 0; j < count; j++) {
			struct node *x = &base[group_lines[j]];

			if (prev)
				prev->next = x;
			else
				first = x;
			prev = x;
		}
	}
	prev->next = first;
	return first;
}

/* Untimed passes before a point's sample in points mode: a level that keeps only lines
 * used again (an L3 filled from L2 victims) holds the set after the second pass. */
static uint64_t warm_steps(uint64_t n)
{
	return n < WARM_MAX ? WARM_PASSES * n : WARM_PASSES * WARM_MAX;
}

static struct node *walk(struct node *p, uint64_t steps)
{
	for (; steps; steps--)
		p = p->next;
	return p;
}

/* The timed walk of point k from *at; false once the window is over. */
static bool chase(unsigned k, struct node **at, uint64_t end, uint64_t *best)
{
	uint64_t t0, t1;

	xt_barrier();
	t0 = xt_counter();
	xt_barrier();
	*at = walk(*at, point_steps[k]);
	xt_barrier();
	t1 = xt_counter();
	xt_barrier();
	xt_keep(*at);
	xt_sample(0, t1, t1 - t0, 0);
	xt_cfg.done++;
	if (best && (!*best || t1 - t0 < *best))
		*best = t1 - t0;
	return t1 < end;
}

static bool stream(uint64_t end)
{
	uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, t0, t1;

	xt_barrier();
	t0 = xt_counter();
	xt_barrier();
	for (uint64_t i = 0; i < stream_words; i += 4) {
		s0 += stream_buf[i];
		s1 += stream_buf[i + 1];
		s2 += stream_buf[i + 2];
		s3 += stream_buf[i + 3];
	}
	xt_barrier();
	t1 = xt_counter();
	xt_barrier();
	xt_keep(s0 + s1 + s2 + s3);
	xt_sample(1, t1, t1 - t0, 0);
	return t1 < end;
}

/* The curve has reached memory: the last two octaves of points within 20 % of point k's
 * latency, and that at least MEMORY_X times the first point's (an L1 hit). */
static bool in_memory(unsigned k)
{
	double last = (double)fastest[k] / (double)point_steps[k];

	if (k < 2 * per_octave || last < MEMORY_X * (double)fastest[0] / (double)point_steps[0])
		return false;
	for (unsigned i = k - 2 * per_octave; i < k; i++) {
		double lat = (double)fastest[i] / (double)point_steps[i];

		if (lat < last / 1.2 || lat > last * 1.2)
			return false;
	}
	stopped = k + 1;
	return true;
}

/* The line test: line_bytes= cut into nodes `stride` bytes apart, one random cycle, timed
 * for LINE_STEPS loads after a pass. Nodes closer than a line share it, so some loads hit
 * a line the one before brought in: the latency rises with the stride up to the line size
 * and not past it (set conflicts keep what misses the same). */
static bool line_test(unsigned k, uint64_t end)
{
	uint64_t stride = 16u << k, n = line_bytes / stride, t0, t1;
	void **p;

	for (uint64_t i = 0; i < n; i++)
		line_order[i] = (uint32_t)i;
	shuffle(line_order, n);
	for (uint64_t i = 0; i < n; i++)
		*(void **)(line_buf + line_order[i] * stride) = line_buf + line_order[(i + 1) % n] * stride;
	p = (void **)(line_buf + line_order[0] * stride);
	for (uint64_t i = 0; i < n; i++)
		p = *p;
	xt_barrier();
	t0 = xt_counter();
	xt_barrier();
	for (uint64_t i = 0; i < LINE_STEPS; i++)
		p = *p;
	xt_barrier();
	t1 = xt_counter();
	xt_barrier();
	xt_keep(p);
	xt_sample(2, t1, t1 - t0, 0);
	return t1 < end;
}

static long run(void *unused)
{
	uint64_t first = xt_counter(), end = xt_cfg.duration_ticks ? first + xt_cfg.duration_ticks : UINT64_MAX;
	struct node *at[MAX_POINTS];

	(void)unused;
	if (xt_cfg.metric != 0) {      /* one loop made every metric's samples, in one window */
		xt_cfg.window_ticks = window;
		return XT_PASS;
	}
	xt_cfg.done = 0;
	if (curve) {
		for (unsigned round = 0; round < rounds; round++)
			for (unsigned k = 0; k < (stopped ? stopped : npoints); k++) {
				at[0] = walk(link(nodes, point_nodes[k]), point_nodes[k] < WARM_MAX ? point_nodes[k] : WARM_MAX);
				for (unsigned r = 0; r < repeats; r++)
					if (!chase(k, &at[0], end, &fastest[k]))
						goto over;
				if (!stopped && in_memory(k))
					break;
			}
		goto over;
	}
	for (unsigned k = 0; k < npoints; k++)
		at[k] = link(nodes + point_off[k], point_nodes[k]);
	for (uint64_t round = 0; !xt_cfg.iterations || round < xt_cfg.iterations; round++) {
		for (unsigned k = 0; k < npoints; k++) {
			at[k] = walk(at[k], warm_steps(point_nodes[k]));
			if (!chase(k, &at[k], end, NULL))
				goto over;
		}
		if (stream_words && !stream(end))
			goto over;
		for (unsigned k = 0; line_bytes && k < STRIDES; k++)
			if (!line_test(k, end))
				goto over;
	}
over:
	window = xt_cfg.window_ticks = xt_counter() - first;
	return XT_PASS;
}

static void report(void)
{
	if (curve)   /* sample seq s: point (s / repeats) % measured_points */
		xt_meta("measured_points=%u memory_from=%u", stopped ? stopped : npoints, stopped);
	for (unsigned k = 0; k < npoints; k++)
		xt_meta("p%u_bytes=%lu p%u_steps=%lu", k, (unsigned long)(point_nodes[k] * sizeof(struct node)),
			k, (unsigned long)point_steps[k]);
	if (stream_words)
		xt_meta("stream_bytes=%lu", (unsigned long)(stream_words * sizeof(uint64_t)));
	if (line_bytes)     /* metric 2's samples: strides 16 << (i % line_strides) */
		xt_meta("line_bytes=%lu line_steps=%u line_strides=%u", (unsigned long)line_bytes, LINE_STEPS, STRIDES);
}

static const struct xt_case cases[] = {
	{ "cache_probe_chase", "cycles", NULL, NULL, NULL, NULL, 0, "duration" },
	{ "cache_probe_stream", "cycles", NULL, NULL, NULL, NULL, 0, "duration" },
	{ "cache_probe_line", "cycles", NULL, NULL, NULL, NULL, 0, "duration" },
};

const struct xt_bench xt_bench_cache_probe = {
	.name = "cache_probe", .role = "measurer", .keys = keys, .setup = setup,
	.cases = cases, .ncases = sizeof(cases) / sizeof(cases[0]), .run = run, .report = report,
	.kpi = "memory",
	/* hi= bytes in one piece: twice its size of guest RAM, as an arm64 virt guest's RAM is cut
	 * near its middle (QEMU's device tree: 128 MiB of a 128 MiB cycle failed in 256 MiB) */
	.buffers = 2,
};
