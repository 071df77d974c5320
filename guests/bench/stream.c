/* stream.c - measurer: STREAM-style sustainable memory bandwidth (seed 003's STREAM
 * v5.10 tables): the four kernels Copy, Scale, Add and Triad, our code after McCalpin's.
 *
 * Three arrays a, b, c of doubles share size bytes (default llc*4: each array 4/3 of
 * the last-level cache, so no kernel's arrays fit in it). Four rate cases, one kernel
 * each, a sample = one pass of the kernel over the arrays, in MB/s (10^6 bytes/s) with
 * STREAM's byte counts: metric 0 `stream_copy` c = a and metric 1 `stream_scale`
 * b = q c (2 arrays x 8 bytes per element), metric 2 `stream_add` c = a + b and metric 3
 * `stream_triad` a = b + q c (3 arrays), q = 3. Each case's prep sets the arrays its
 * kernel reads; after its loop every element of the array it wrote must hold the exact
 * expected value (STREAM's own validation, exact here: small integers).
 * Differences from membw: membw reads (a sum) and writes (stores) 64-bit words of one
 * buffer and records ticks per pass (kind duration); stream moves doubles between arrays
 * with STREAM's kernels and records the bandwidth itself (kind throughput).
 * Runs on every vCPU of a guest with several (vcpus=N, driver.c), like STREAM's OpenMP
 * threads but each vCPU with three arrays of its own of size bytes (setup allocates them
 * per vCPU: N vCPUs touch N x size), its own samples and its own checks.
 * Caveats: STREAM reports the best rate of 10 passes, this bench every pass (the best is
 * the host's max); one vCPU's arrays are one thread's (STREAM with OpenMP splits them
 * over all cores); plain C loops at -O2 as built for each target (the compiler may or may
 * not vectorise, but never turns a kernel into a libc call); stores are not non-temporal, so each written line is read for
 * ownership first, traffic STREAM's counts leave out, as they do for STREAM itself.
 */
#include "xt.h"

#define Q 3.0

static const struct xt_key keys[] = { { "size", XT_SIZE, "[3k,)", "llc*4" }, XT_KEYS_END };
static struct vcpu_arrays {
	double *a, *b, *c;
} arrays[XT_MAX_CPUS];                    /* each vCPU's, set up once */
static size_t n;                          /* read-only once set up */
static uint64_t two_arrays, three_arrays;

static int setup(void)
{
	n = (size_t)(xt_key_size("size") / (3 * sizeof(double)));
	two_arrays = 2 * sizeof(double) * (uint64_t)n;
	three_arrays = 3 * sizeof(double) * (uint64_t)n;
	for (unsigned v = 0; v < xt_vcpus(); v++) {
		arrays[v].a = xt_alloc(n * sizeof(double));
		arrays[v].b = xt_alloc(n * sizeof(double));
		arrays[v].c = xt_alloc(n * sizeof(double));
		if (!arrays[v].a || !arrays[v].b || !arrays[v].c) {
			xt_set_reason("out of memory for the stream arrays");
			return XT_FAIL;
		}
	}
	xt_meta("elements=%lu array_bytes=%lu q=3", (unsigned long)n, (unsigned long)(n * sizeof(double)));
	return XT_PASS;
}

static void fill(double *x, double v)
{
	for (size_t i = 0; i < n; i++)
		x[i] = v;
}

static bool all(const double *x, double v)
{
	for (size_t i = 0; i < n; i++)
		if (x[i] != v)
			return false;
	return true;
}

static int check(const double *x, double v, const char *reason)
{
	if (all(x, v))
		return XT_PASS;
	xt_set_reason(reason);
	return XT_FAIL;
}

/* The calling vCPU's arrays, as locals a, b, c (once, before a kernel's loop). */
#define ARRAYS \
	const struct vcpu_arrays *mine = &arrays[xt_cpu_index()]; \
	double *a = mine->a, *b = mine->b, *c = mine->c; \
	(void)a, (void)b, (void)c

/* The kernels: plain loops that gcc must not turn into memcpy/memset calls. */
XT_NOLIBCALL static void copy(void)
{
	ARRAYS;

	for (size_t i = 0; i < n; i++)
		c[i] = a[i];
	xt_barrier();
}

XT_NOLIBCALL static void scale(void)
{
	ARRAYS;

	for (size_t i = 0; i < n; i++)
		b[i] = Q * c[i];
	xt_barrier();
}

XT_NOLIBCALL static void add(void)
{
	ARRAYS;

	for (size_t i = 0; i < n; i++)
		c[i] = a[i] + b[i];
	xt_barrier();
}

XT_NOLIBCALL static void triad(void)
{
	ARRAYS;

	for (size_t i = 0; i < n; i++)
		a[i] = b[i] + Q * c[i];
	xt_barrier();
}

/* Inputs a = 1 (copy: c = 1), c = 1 (scale: b = 3), a = 1, b = 3 (add: c = 4),
 * b = 3, c = 4 (triad: a = 15). */
static int prep_copy(void) { ARRAYS; fill(a, 1.0); return XT_PASS; }
static int prep_scale(void) { ARRAYS; fill(c, 1.0); return XT_PASS; }
static int prep_add(void) { ARRAYS; fill(a, 1.0); fill(b, 3.0); return XT_PASS; }
static int prep_triad(void) { ARRAYS; fill(b, 3.0); fill(c, 4.0); return XT_PASS; }
static int post_copy(void) { ARRAYS; return check(c, 1.0, "stream: copy wrote a wrong value"); }
static int post_scale(void) { ARRAYS; return check(b, 3.0, "stream: scale wrote a wrong value"); }
static int post_add(void) { ARRAYS; return check(c, 4.0, "stream: add wrote a wrong value"); }
static int post_triad(void) { ARRAYS; return check(a, 15.0, "stream: triad wrote a wrong value"); }

static const struct xt_case cases[] = {
	{ "stream_copy", "MB/s", prep_copy, NULL, copy, post_copy, 10, "throughput" },
	{ "stream_scale", "MB/s", prep_scale, NULL, scale, post_scale, 10, "throughput" },
	{ "stream_add", "MB/s", prep_add, NULL, add, post_add, 10, "throughput" },
	{ "stream_triad", "MB/s", prep_triad, NULL, triad, post_triad, 10, "throughput" },
};
static const struct xt_rate rates[] = {
	{ &two_arrays, 1e6 }, { &two_arrays, 1e6 }, { &three_arrays, 1e6 }, { &three_arrays, 1e6 },
};

const struct xt_bench xt_bench_stream = {
	.name = "stream", .role = "measurer", .keys = keys, .setup = setup,
	.cases = cases, .ncases = sizeof(cases) / sizeof(cases[0]),
	.kpi = "memory", .rates = rates, .smp = true,
};
