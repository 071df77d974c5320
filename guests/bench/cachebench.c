/* cachebench.c - measurer: Cachebench-style memory copy and integer read-modify-write
 * bandwidth at one buffer size (seed 003's Cachebench tables; a matrix over size_kib
 * sweeps the sizes as Cachebench does).
 *
 * Two rate cases over buffers of size_kib KiB (our code after llcbench's cachebench):
 * metric 0 `cachebench_copy` copies one buffer to another (xt_memcpy), metric 1
 * `cachebench_rmw` increments every 32-bit integer of a buffer (x[i]++). Bandwidth is
 * counted as Cachebench counts it, read and written bytes both (2 x size per pass), in
 * MiB/s (Cachebench's "MB/sec" are 2^20 bytes). One sample = enough passes to move at
 * least sample_kib KiB (sizes far below a cache level would otherwise time little more
 * than the counter read); the passes repeat over the same buffers, so a buffer that fits
 * a cache level is measured warm in it, like Cachebench's loop over one size.
 * Checks after each loop: the copy's destination equals its source; every integer of
 * the RMW buffer grew by exactly the number of passes (warmup included).
 * Runs on every vCPU of a guest with several (vcpus=N, driver.c): each vCPU copies and
 * increments buffers of its own (setup allocates a source and destination per vCPU, so N
 * vCPUs touch N x the working set) and checks its own after its loop.
 * Caveats: xt_memcpy is a 64-bit word loop on every target, not a libc memcpy (no vector
 * registers, no non-temporal stores), so native copies are not libc's either; Cachebench
 * runs each size for seconds from flushed caches, this bench samples over iterations=;
 * the copy's working set is 2 x size_kib (the RMW's 1 x), which is what the cache sees.
 */
#include "xt.h"

#define MIB 1048576.0

static const struct xt_key keys[] = {
	{ "size_kib", XT_U64, "[1,4194304]", "2048" },
	{ "sample_kib", XT_U64, "[1,4194304]", "8192" },
	XT_KEYS_END
};
static struct {
	uint64_t *src, *dst;
} bufs[XT_MAX_CPUS];                     /* each vCPU's, set up once */
static size_t size, passes;              /* read-only once set up */
static uint64_t work;

static int setup(void)
{
	uint64_t kib = xt_key_u64("size_kib"), sample = xt_key_u64("sample_kib");

	size = (size_t)kib * 1024;
	passes = (size_t)(sample > kib ? (sample + kib - 1) / kib : 1);
	work = 2 * (uint64_t)size * passes;
	for (unsigned v = 0; v < xt_vcpus(); v++) {
		bufs[v].src = xt_alloc(size);
		bufs[v].dst = xt_alloc(size);
		if (!bufs[v].src || !bufs[v].dst) {
			xt_set_reason("out of memory for the cachebench buffers");
			return XT_FAIL;
		}
	}
	xt_meta("bytes_per_pass=%lu passes_per_sample=%lu bytes_per_sample=%lu mib=1048576",
		(unsigned long)size, (unsigned long)passes, (unsigned long)work);
	return XT_PASS;
}

static int prep_copy(void)
{
	uint64_t *src = bufs[xt_cpu_index()].src;

	for (size_t i = 0; i < size / 8; i++)
		src[i] = i * 0x9e3779b97f4a7c15ull;
	return XT_PASS;
}

static void exec_copy(void)
{
	unsigned v = xt_cpu_index();
	uint64_t *src = bufs[v].src, *dst = bufs[v].dst;

	for (size_t p = 0; p < passes; p++) {
		xt_memcpy(dst, src, size);
		xt_barrier();
	}
}

static int post_copy(void)
{
	unsigned v = xt_cpu_index();
	const uint64_t *src = bufs[v].src, *dst = bufs[v].dst;

	if (xt_memcmp(dst, src, size)) {
		xt_set_reason("cachebench: the copy differs from its source");
		return XT_FAIL;
	}
	return XT_PASS;
}

static int prep_rmw(void)
{
	uint32_t *x = (uint32_t *)bufs[xt_cpu_index()].dst;

	for (size_t i = 0; i < size / 4; i++)
		x[i] = (uint32_t)i;
	return XT_PASS;
}

static void exec_rmw(void)
{
	uint32_t *x = (uint32_t *)bufs[xt_cpu_index()].dst;

	for (size_t p = 0; p < passes; p++) {
		for (size_t i = 0; i < size / 4; i++)
			x[i]++;
		xt_barrier();
	}
}

static int post_rmw(void)
{
	const uint32_t *x = (const uint32_t *)bufs[xt_cpu_index()].dst;
	uint32_t grown = (uint32_t)((xt_cfg.warmup + xt_cfg.done) * passes);

	for (size_t i = 0; i < size / 4; i++)
		if (x[i] != (uint32_t)i + grown) {
			xt_set_reason("cachebench: an integer of the RMW buffer missed an increment");
			return XT_FAIL;
		}
	return XT_PASS;
}

static const struct xt_case cases[] = {
	{ "cachebench_copy", "MiB/s", prep_copy, NULL, exec_copy, post_copy, 20, "throughput" },
	{ "cachebench_rmw", "MiB/s", prep_rmw, NULL, exec_rmw, post_rmw, 20, "throughput" },
};
static const struct xt_rate rates[] = { { &work, MIB }, { &work, MIB } };

const struct xt_bench xt_bench_cachebench = {
	.name = "cachebench", .role = "measurer", .keys = keys, .setup = setup,
	.cases = cases, .ncases = sizeof(cases) / sizeof(cases[0]),
	.kpi = "memory", .rates = rates, .smp = true,
};
