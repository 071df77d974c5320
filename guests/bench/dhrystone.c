/* dhrystone.c - measurer: a Dhrystone-class integer benchmark (seed 003's DMIPS), our code.
 *
 * One round does the kinds of work Dhrystone 2.1's loop does, in about the same mix,
 * written here (not Dhrystone's source): a whole-record assignment through a pointer
 * and record field updates, a string copy and a 30-character string compare that
 * differs late, character compares, integer add/multiply/divide, enum switches, one-
 * and two-dimensional array stores indexed by the round, and procedure calls with
 * pointer out-parameters. Every procedure is `noipa` (no inlining, cloning or constant
 * propagation across calls), as Dhrystone's two separately compiled files are.
 * One sample = `loops` rounds from the same start state (reset, untimed); two rate
 * cases: metric 0 `dhrystone_ips` (rounds per second, unit iter/s) and metric 1
 * `dhrystone_dmips` (rounds per second / 1757, the VAX 11/780's Dhrystones per second:
 * unit DMIPS), each with its own measured loop. Checks: prep runs `loops` rounds once
 * untimed for a reference checksum of the final state; after each case's loop the last
 * sample's state must give the same (status=fail otherwise).
 * Runs on every vCPU of a guest with several (vcpus=N, driver.c): each vCPU has its own
 * state (records, arrays, strings, reference checksum), one cache-line-aligned struct of
 * them per vCPU, taken once at the start of every exec/reset/prep/post; the procedures
 * are handed it as Dhrystone's reach their globals.
 * Caveats: DMIPS here are our rounds per second / 1757, comparable between platforms
 * and backends of this bench, not with published Dhrystone DMIPS (another program, other
 * compilers and flags); the whole state (~17 KiB) stays in the L1/L2 caches, so like
 * Dhrystone it measures the core (and the hypervisor's CPU overhead), not memory.
 */
#include "xt.h"

#define PROC __attribute__((noipa))
#define TEXT 31                   /* 30 characters and the NUL */
#define DIM 64
#define VAX_IPS 1757.0            /* 1 DMIPS = 1757 Dhrystone iterations per second */

enum hue { RED, AMBER, GREEN, BLUE, VIOLET };

struct record {
	struct record *next;
	enum hue hue;
	int32_t id, weight;
	char label[TEXT];
};

static const struct xt_key keys[] = { { "loops", XT_U64, "[1,1000000000]", "100000" }, XT_KEYS_END };
/* What the rounds touch (Dhrystone's globals), one per vCPU, each on lines of its own. */
struct state {
	struct record first, second;
	struct record *head;
	int32_t row[DIM], grid[DIM][DIM];
	char mine[TEXT], theirs[TEXT];
	int32_t level;
	bool flag;
	char mark;
	uint64_t reference;      /* prep's checksum of the final state */
} __attribute__((aligned(128)));
static struct state states[XT_MAX_CPUS];
static uint64_t loops, work;  /* read-only once set up */

PROC static void copy_text(char *d, const char *s)
{
	while ((*d++ = *s++))
		;
}

PROC static bool same_char(char a, char b)
{
	return a == b;
}

PROC static enum hue next_hue(const struct state *s, enum hue h, int32_t k)
{
	switch (h) {
	case RED: return k > 100 ? GREEN : AMBER;
	case AMBER: return s->flag ? BLUE : RED;
	case GREEN: return VIOLET;
	case BLUE: return k & 1 ? RED : GREEN;
	default: return AMBER;
	}
}

PROC static void scale(const struct state *s, int32_t a, int32_t b, int32_t *out)
{
	*out = a * b / (b - a + 7) + s->level;
}

/* Stores indexed by the round, as Dhrystone's Proc_8 does into its two arrays. */
PROC static void fill(struct state *s, int32_t a, int32_t b)
{
	int32_t *r = s->row, (*g)[DIM] = s->grid;
	int32_t i = a + 5;

	r[i % DIM] = b;
	r[(i + 1) % DIM] = r[i % DIM];
	r[(i + 30) % DIM] = i;
	for (int32_t j = i; j <= i + 1; j++)
		g[i % DIM][j % DIM] = i;
	g[i % DIM][(i - 1) % DIM] += 1;
	g[(i + 20) % DIM][i % DIM] = r[i % DIM];
	s->level = 5;
}

/* A record assigned whole through its link, then updated field by field. */
PROC static void relink(struct state *s, struct record *r)
{
	struct record *n = r->next;

	*n = *s->head;
	r->weight = 5;
	n->weight = r->weight;
	n->next = r->next;
	scale(s, n->weight, 10, &n->weight);
	if (n->hue == RED) {
		n->weight = 6;
		n->hue = next_hue(s, r->hue, n->weight);
		n->next = s->head->next;
	} else {
		*r = *n;
	}
}

PROC static int32_t letters(const struct state *s)
{
	int32_t hits = 0;

	for (char c = 'A'; c <= s->mark; c++)
		if (same_char(c, 'C'))
			hits++;
	return hits;
}

static void reset(void)
{
	struct state *s = &states[xt_cpu_index()];

	xt_memset(s->row, 0, sizeof(s->row));
	xt_memset(s->grid, 0, sizeof(s->grid));
	copy_text(s->first.label, "XTALK INTEGER MIX, SOME STRING");
	s->first.next = &s->second;
	s->first.hue = GREEN;
	s->first.id = 1;
	s->first.weight = 40;
	s->second = s->first;
	s->second.next = &s->first;
	s->head = &s->first;
	copy_text(s->mine, "XTALK INTEGER MIX, 1ST STRING");
	s->level = 0;
	s->flag = false;
	s->mark = 'A';
}

static void exec(void)
{
	struct state *s = &states[xt_cpu_index()];    /* once, before the rounds */

	for (uint64_t k = 1; k <= loops; k++) {
		int32_t a = 2, b = 3, c = 0;

		s->mark = 'B';
		s->flag = true;
		copy_text(s->theirs, "XTALK INTEGER MIX, 2ND STRING");
		s->flag = xt_strcmp(s->mine, s->theirs) != 0;
		s->mark = (char)('A' + letters(s));
		while (a < b) {
			c = 5 * a - b;
			scale(s, a, c, &c);
			a++;
		}
		fill(s, a + (int32_t)(k & 15), c);
		relink(s, s->head);
		s->head->hue = next_hue(s, s->head->hue, c);
		c = a * b;
		b = c / a;
		s->level += 7 * (c - b) - a;
	}
}

/* FNV-1a over everything the rounds leave behind. */
static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ ((const unsigned char *)p)[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t checksum(const struct state *s)
{
	const struct record *r[] = { &s->first, &s->second };
	uint64_t h = mix(0xcbf29ce484222325ull, s->row, sizeof(s->row));

	h = mix(h, s->grid, sizeof(s->grid));
	h = mix(h, s->mine, TEXT);
	h = mix(h, s->theirs, TEXT);
	for (unsigned i = 0; i < 2; i++) {
		int32_t f[] = { (int32_t)r[i]->hue, r[i]->id, r[i]->weight, r[i]->next == &s->first };
		h = mix(mix(h, f, sizeof(f)), r[i]->label, TEXT);
	}
	return h ^ (uint64_t)(uint32_t)s->level ^ ((uint64_t)s->flag << 32) ^
	       ((uint64_t)(unsigned char)s->mark << 40);
}

static int setup(void)
{
	loops = xt_key_u64("loops");
	work = loops;
	xt_meta("loops=%lu vax_ips=1757", (unsigned long)loops);
	return XT_PASS;
}

static int prep(void)
{
	struct state *s = &states[xt_cpu_index()];

	reset();
	exec();
	s->reference = checksum(s);
	return XT_PASS;
}

static int post(void)
{
	const struct state *s = &states[xt_cpu_index()];

	if (checksum(s) != s->reference) {
		xt_set_reason("dhrystone: the final state differs from the reference run");
		return XT_FAIL;
	}
	return XT_PASS;
}

static void report(void)
{
	xt_meta("checksum=0x%lx", (unsigned long)states[0].reference);   /* every vCPU's is checked against its own */
}

static const struct xt_case cases[] = {
	{ "dhrystone_ips", "iter/s", prep, reset, exec, post, 10, "throughput" },
	{ "dhrystone_dmips", "DMIPS", prep, reset, exec, post, 10, "throughput" },
};
static const struct xt_rate rates[] = { { &work, 1.0 }, { &work, VAX_IPS } };

const struct xt_bench xt_bench_dhrystone = {
	.name = "dhrystone", .role = "measurer", .keys = keys, .setup = setup,
	.cases = cases, .ncases = sizeof(cases) / sizeof(cases[0]), .report = report,
	.kpi = "application", .rates = rates, .smp = true,
};
