/* qsort.c - measurer: MiBench-qsort-like sort of ~1171 KiB of 32-bit keys.
 *
 * The input (size_kib= KiB of uint32 keys, default 1171 as in MiBench qsort_large and
 * the thesis, i.e. larger than L2 on small cores) is generated once from seed= with
 * splitmix64. Every iteration restores the unsorted input (untimed copy) and sorts it
 * with our own quicksort (timed): median-of-three Hoare partition, insertion sort
 * below 16 elements, recursion on the smaller side. After the loop the result is
 * checked (sorted, same sum and xor as the input): status=fail otherwise.
 * Caveats: keys are integers compared inline, not MiBench's records through a
 * comparator callback, so absolute times differ from MiBench; the restore copy warms
 * the cache with the input just before each sort (as MiBench's re-read would).
 */
#include "xt.h"

static const struct xt_key keys[] = {
	{ "size_kib", XT_U64, "[1,4194304]", "1171" },
	{ "seed", XT_U64, NULL, "1" },
	XT_KEYS_END
};
static uint32_t *input, *work;
static size_t nkeys;
static uint64_t seed, in_sum, in_xor;

static int setup(void)
{
	uint64_t kib = xt_key_u64("size_kib");

	seed = xt_key_u64("seed");
	nkeys = (size_t)kib * 1024 / sizeof(uint32_t);
	input = xt_alloc(nkeys * sizeof(uint32_t));
	work = xt_alloc(nkeys * sizeof(uint32_t));
	if (!input || !work) {
		xt_set_reason("out of memory for the qsort input");
		return XT_FAIL;
	}
	xt_meta("keys=%lu bytes=%lu seed=%lu", (unsigned long)nkeys,
		(unsigned long)(nkeys * sizeof(uint32_t)), (unsigned long)seed);
	return XT_PASS;
}

static int prep(void)
{
	struct xt_rng r;

	xt_rng_seed(&r, seed);
	in_sum = in_xor = 0;
	for (size_t i = 0; i < nkeys; i++) {
		input[i] = (uint32_t)(xt_rng_next(&r) >> 32);
		in_sum += input[i];
		in_xor ^= input[i];
	}
	return XT_PASS;
}

static void insertion_sort(uint32_t *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		uint32_t x = a[i];
		size_t j = i;
		for (; j > 0 && a[j - 1] > x; j--)
			a[j] = a[j - 1];
		a[j] = x;
	}
}

static inline void swap(uint32_t *a, uint32_t *b)
{
	uint32_t t = *a;
	*a = *b;
	*b = t;
}

static void quicksort(uint32_t *a, size_t n)
{
	while (n > 16) {
		size_t m = n / 2, i, j, left;
		uint32_t p;

		/* Order a[0] <= a[m] <= a[n-1]: the pivot a[m] is then never the unique
		 * maximum at the end, so Hoare's j ends in [0, n-2]. */
		if (a[m] < a[0])
			swap(&a[m], &a[0]);
		if (a[n - 1] < a[m]) {
			swap(&a[n - 1], &a[m]);
			if (a[m] < a[0])
				swap(&a[m], &a[0]);
		}
		p = a[m];
		i = (size_t)-1;
		j = n;
		for (;;) {
			do
				i++;
			while (a[i] < p);
			do
				j--;
			while (a[j] > p);
			if (i >= j)
				break;
			swap(&a[i], &a[j]);
		}
		left = j + 1;
		if (left < n - left) {
			quicksort(a, left);
			a += left;
			n -= left;
		} else {
			quicksort(a + left, n - left);
			n = left;
		}
	}
	insertion_sort(a, n);
}

static void reset(void)
{
	xt_memcpy(work, input, nkeys * sizeof(uint32_t));
}

static void exec(void)
{
	quicksort(work, nkeys);
}

static int post(void)
{
	uint64_t sum = work[0], x = work[0];

	for (size_t i = 1; i < nkeys; i++) {
		if (work[i - 1] > work[i]) {
			xt_set_reason("qsort output not sorted");
			return XT_FAIL;
		}
		sum += work[i];
		x ^= work[i];
	}
	if (sum != in_sum || x != in_xor) {
		xt_set_reason("qsort output is not a permutation of the input");
		return XT_FAIL;
	}
	return XT_PASS;
}

static const struct xt_case cases[] = {
	{ "qsort", "cycles", prep, reset, exec, post, 100, "duration" },
};

const struct xt_bench xt_bench_qsort = {
	.name = "qsort", .role = "measurer", .keys = keys, .setup = setup,
	.cases = cases, .ncases = sizeof(cases) / sizeof(cases[0]),
	.kpi = "application",
};
