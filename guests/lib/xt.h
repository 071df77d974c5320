/* xt.h - the arch-neutral benchmark library: strings, formatting, parameters, the
 * sample ring, protocol lines, log2 histogram, PRNG, and the bench/case table types.
 *
 * Everything here is freestanding C (stdint/stddef/stdbool/stdarg only) and calls
 * only platform.h. Caveats: assumes an LP64 target (uint64_t == unsigned long, so
 * %lu prints it); the bench loop and ring writes may run in user mode (ring 3 / EL0)
 * via xt_run_unprivileged, so anything they touch must be user-accessible memory and
 * nothing in them may print.
 */
#ifndef XT_H
#define XT_H
#include <stdarg.h>
#include "platform.h"

#define XT_PASS 0
#define XT_FAIL 1
#define XT_BADPARAM 2
#define XT_FAULT 3            /* END status=fault, exit status 1 */

/* Compiler barrier: keeps the measured body between the two counter reads. */
#define xt_barrier() __asm__ __volatile__("" ::: "memory")
/* A spin-wait's pause (x86 `pause`, arm64 `yield`): kinder to an SMT sibling and to a
 * hypervisor that watches for spinning vCPUs. */
#if defined(__x86_64__)
#define xt_cpu_relax() __asm__ __volatile__("pause" ::: "memory")
#elif defined(__aarch64__)
#define xt_cpu_relax() __asm__ __volatile__("yield" ::: "memory")
#else
#define xt_cpu_relax() xt_barrier()
#endif
/* Keeps a value alive (the compiler must assume it is used). */
#define xt_keep(v) __asm__ __volatile__("" : : "r"(v) : "memory")
/* On a function: gcc must not turn its loops into memset/memcpy calls (libc's natively,
 * libc_shims.c's in the guests, which call back into string.c). */
#define XT_NOLIBCALL __attribute__((optimize("no-tree-loop-distribute-patterns")))

/* ---- string.c ---- */
void *xt_memset(void *d, int c, size_t n);
void *xt_memcpy(void *d, const void *s, size_t n);
void *xt_memmove(void *d, const void *s, size_t n);
int xt_memcmp(const void *a, const void *b, size_t n);
size_t xt_strlen(const char *s);
int xt_strcmp(const char *a, const char *b);
int xt_strncmp(const char *a, const char *b, size_t n);
void xt_sort_u64(uint64_t *v, size_t n);      /* small in-place sort (shell sort) */

/* ---- fmt.c ---- %s %d %i %u %x %c %p %%, l/ll/z modifiers, width, '0', '-' */
int xt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int xt_snprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Formats into a bounded line buffer and writes it with one xt_console_write. */
void xt_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- cmdline.c ---- parameters "key=value ..." ---- */
/* A parameter, declared once: xt_params_check checks a given value against its type
 * and range before the bench runs, xt_key_* read it (or its default), and the
 * catalogue (catalogue.c) prints it for xtalk to check campaign specs with.
 *   type   XT_U64 unsigned integer (decimal or 0x hex), XT_DOUBLE decimal number,
 *          XT_SIZE bytes or a size expression (xt_param_size), XT_BOOL 0/1/false/true,
 *          XT_WORD one of the '|'-separated words of range, XT_TEXT anything
 *   range  an interval, [ ] inclusive and ( ) exclusive ends, an empty end unbounded:
 *          "[1,100000]", "(0,1e7]", "[1,)" (a size's in bytes, ends may be "1m");
 *          the words of an XT_WORD ("read|write"); NULL: any value of the type
 *   dflt   the default as text, NULL when it depends on the run (the bench computes it)
 * Names, ranges and defaults hold no '"', '\\' or spaces (they are printed as JSON). */
enum xt_type { XT_U64, XT_DOUBLE, XT_SIZE, XT_BOOL, XT_WORD, XT_TEXT };
struct xt_key {
	const char *name;
	enum xt_type type;
	const char *range, *dflt;
};
#define XT_KEYS_END { NULL, XT_TEXT, NULL, NULL }
extern const struct xt_key xt_common_keys[];  /* keys every bench accepts (protocol.md 1) */
extern const char *const xt_type_names[];      /* "u64", "double", ... by enum xt_type */

void xt_params_init(const char *cmdline);     /* badparam on malformed tokens */
const char *xt_run_id(void);                  /* run= (default "0") */
bool xt_param_has(const char *key);
const char *xt_param_str(const char *key, const char *dflt);
uint64_t xt_param_u64(const char *key, uint64_t dflt);   /* decimal or 0x hex */
double xt_param_double(const char *key, double dflt);
/* Sizes: 4096, 1171k, 4m, 1g, llc, llc*1.5, l2*2, l1/2, shared/2 (k/m/g = 1024-based;
 * shared: the largest level the measurer shares with its neighbours, only as given). */
uint64_t xt_param_size(const char *key, const char *dflt_expr);
/* Cache size honouring l1_bytes= / l2_bytes= / l3_bytes= / llc_bytes= overrides; level 0
 * is the LLC, XT_SHARED shared_bytes= (0 when not given: no platform detects it). */
#define XT_SHARED 4
uint64_t xt_cache_size(int level);
/* Rejects any key not in xt_common_keys or keys (ended by XT_KEYS_END) and any value
 * outside its declaration; keys then serve xt_key_*. */
void xt_params_check(const struct xt_key *keys);
/* A declared parameter's value, else its declared default (a missing value without
 * one is a bad parameter; xt_key_str returns NULL then). */
uint64_t xt_key_u64(const char *key);
double xt_key_double(const char *key);
uint64_t xt_key_size(const char *key);
bool xt_key_bool(const char *key);
const char *xt_key_str(const char *key);
void xt_badparam(const char *key, const char *msg) __attribute__((noreturn));

/* ---- catalogue.c ---- the catalogue of a program's benches as JSON on the console ---- */
/* {"suite": suite, "program": program, "common": [xt_common_keys but omit, extra...],
 *  "benches": [{"name", "role", "kpi", "params": [keys], "metrics": [{"name", "unit",
 *  "kind"}], "channels": [names], "buffers": n, "smp": bool, "tune": [keys]}, ...]}: xt_cat_suite, then per bench xt_cat_bench and its xt_cat_metric
 * calls, then xt_cat_end. A metric name may hold <N> (one per thread: cyclictest_t<N>). */
void xt_cat_suite(const char *suite, const char *program, const struct xt_key *extra,
		  const char *const *omit);
void xt_cat_bench(const char *name, const char *role, const char *kpi,
		  const struct xt_key *keys, const char *channels, unsigned buffers, const struct xt_key *tune,
		  bool smp);
void xt_cat_metric(const char *name, const char *unit, const char *kind);
void xt_cat_end(void);
struct xt_bench;
void xt_cat_xt_bench(const struct xt_bench *b);   /* a case-table bench's entry (bench table below) */
void xt_catalogue(void);                       /* main.c: the probe suite's */

/* ---- ring.c ---- protocol.md section 3 ---- */
#define XT_RING_MAGIC "XTRING01"
#define XT_RING_HDR 64
#define XT_SLOT_SIZE 32
#define XT_FLAG_OVERFLOW 1u
struct xt_ring_hdr {
	char magic[8];
	uint32_t version, slot_size;
	uint64_t capacity, write_seq, heartbeat, freq_hz, reserved[2];
};
struct xt_slot {
	uint64_t seq, t, value;
	uint32_t metric, flags;
};
/* Uses xt_ring_memory(), or an in-memory ring of buffer_slots slots to drain later.
 * writers: the vCPUs that will write samples at once (1: the single-writer fast path).
 * Returns false (after printing XT ERROR) if the shared ring is unusable. */
bool xt_ring_open(uint64_t freq_hz, uint64_t buffer_slots, unsigned writers);
bool xt_ring_shared(void);
/* The hot path: fill slot, release fence, write_seq, heartbeat. Never blocks. */
void xt_sample(uint32_t metric, uint64_t t, uint64_t value, uint32_t flags);
uint64_t xt_ring_written(void);               /* samples written so far */
void xt_ring_drain(void);                      /* XT SAMPLE lines (no shared ring only) */

/* ---- proto.c ---- protocol lines (all carry run=R) ---- */
void xt_begin(const char *bench, const char *role, uint64_t freq_hz);
void xt_meta(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* kind: duration (NULL), throughput, latency, gap, loss; kpi: kernel, application,
 * memory, io (docs/protocol.md section 2). */
void xt_metric(unsigned id, const char *name, const char *unit, const char *kind,
	       const char *kpi);
/* The same for one vCPU's copy of a case in a bench run on several (driver.c): name
 * <name>_vcpu<vcpu>, with vcpu=<vcpu> on the line. */
void xt_metric_vcpu(unsigned id, const char *name, unsigned vcpu, const char *unit,
		    const char *kind, const char *kpi);
/* XT META window_ticks_<id>=ticks: the length of metric id's measured window. */
void xt_window(unsigned id, uint64_t ticks);
/* XT META work_per_pass=N work_unit=U: what one iteration of a stressor's loop does (N
 * bytes, ops, exits, interrupts), from which the host turns its passes into the
 * pressure it achieved (U per second). A bench's setup states it once. */
void xt_work(uint64_t per_pass, const char *unit);
void xt_error(const char *param, const char *msg);          /* param may be NULL */
void xt_end(int status, bool with_samples, const char *reason) __attribute__((noreturn));
const char *xt_arch_name(void);

/* ---- hist.c ---- log2 histogram: bucket k holds [2^k, 2^(k+1)) (0 and 1 in 0),
 * the last bucket is the overflow bucket (everything >= 2^(nbuckets-1)). */
#define XT_HIST_MAX 64
struct xt_hist {
	unsigned nbuckets;
	uint64_t count[XT_HIST_MAX];
};
void xt_hist_init(struct xt_hist *h, unsigned nbuckets);
static inline unsigned xt_hist_bucket(const struct xt_hist *h, uint64_t v)
{
	unsigned b = 63u - (unsigned)__builtin_clzll(v | 1);
	return b < h->nbuckets - 1 ? b : h->nbuckets - 1;
}
static inline void xt_hist_add(struct xt_hist *h, uint64_t v)
{
	h->count[xt_hist_bucket(h, v)]++;
}
void xt_hist_print(const struct xt_hist *h, unsigned metric);   /* XT HIST lines */

/* ---- prng.c ---- splitmix64: deterministic, seedable, fast ---- */
struct xt_rng { uint64_t s; };
void xt_rng_seed(struct xt_rng *r, uint64_t seed);
uint64_t xt_rng_next(struct xt_rng *r);
uint64_t xt_rng_below(struct xt_rng *r, uint64_t n);   /* uniform in [0, n) */

/* ---- math.c ---- portable replacements for libm (the guests have none) ---- */
#define XT_PI 3.14159265358979323846
double xt_fabs(double x);
double xt_sqrt(double x);
double xt_cbrt(double x);
double xt_exp(double x);
double xt_sin(double x);
double xt_cos(double x);
double xt_atan(double x);
double xt_acos(double x);

/* ---- bench tables (driver.c drives them, run.c loops) ---- */
/* One case = one metric. Like kvm-unit-tests arm/micro-bench.c. All hooks except
 * bench.setup/report run unprivileged and must not print. */
struct xt_case {
	const char *name;            /* metric name (XT METRIC name=) */
	const char *unit;            /* "cycles" or "count" */
	int (*prep)(void);           /* once before warmup: build input; XT_PASS or status */
	void (*reset)(void);         /* untimed, before every iteration; may be NULL */
	void (*exec)(void);          /* the timed body (NULL: bench.run does the loop) */
	int (*post)(void);           /* after the loop: verify; XT_PASS or XT_FAIL; may be NULL */
	uint64_t iterations;         /* default measured iterations (measurer role) */
	const char *kind;            /* what a sample is: NULL = "duration" (lower is
	                              * better), "throughput", "latency", "gap", "loss" */
};
/* A rate case (kind "throughput", a unit such as "MB/s"): its sample is not the
 * iteration's ticks but the rate, *work x freq_hz / (per x ticks) rounded. work: what
 * one exec does (bytes, rounds), set by setup; per: work units in one unit of the rate
 * (1e6 bytes for MB/s, 1 for iter/s). */
struct xt_rate {
	const uint64_t *work;        /* NULL: not a rate case (the sample is the ticks) */
	double per;
};
struct xt_bench {
	const char *name;
	const char *role;                   /* default role: "measurer" or "stressor" */
	const struct xt_key *keys;          /* bench parameters, ended by XT_KEYS_END */
	int (*setup)(void);                 /* privileged: params, xt_alloc, META; may be NULL */
	const struct xt_case *cases;
	unsigned ncases;
	long (*run)(void *c);               /* optional custom loop for one case */
	void (*report)(void);               /* privileged, after all cases; may be NULL */
	const char *kpi;                    /* "kernel", "application", "memory" or "io" */
	const struct xt_rate *rates;        /* one per case (rate cases), or NULL: none */
	const char *channels;               /* stressors: interference channels loaded, "l2 llc" */
	const struct xt_key *tune;          /* stressors: search ranges of keys (xtalk search) */
	unsigned buffers;                   /* buffers of a size parameter's bytes it allocates (0: one) */
	bool smp;                           /* runs on every vCPU of a guest with several (vcpus=N):
	                                     * its state is per vCPU (xt_cpu_index) or shared on purpose */
};

/* Run configuration resolved by driver.c from the common keys, one per vCPU the bench
 * runs on (xt_cfg is the calling vCPU's). */
#define XT_MAX_CPUS 16
#define XT_MAX_CASES 16           /* cases of one bench, at most */
struct xt_config {
	bool measurer;               /* role=measurer: record samples */
	uint64_t freq_hz;
	uint64_t overhead;           /* median back-to-back counter cost (ticks) */
	uint64_t iterations;         /* 0 = until duration (or forever) */
	uint64_t warmup;
	uint64_t duration_ticks;     /* 0 = no time limit */
	unsigned metric;             /* metric id of the case being run */
	uint64_t done;               /* measured iterations completed (set by the loop) */
	uint64_t window_ticks;       /* first to last counter read of the case's window
	                              * (set by the loop; 0: driver.c times the run call) */
	const struct xt_rate *rate;  /* the case's, when it is a rate case; else NULL */
	unsigned metric_base;        /* this vCPU's metric id of case 0 (vCPU x cases) */
	uint64_t window_ticks_of[XT_MAX_CASES]; /* each case's window (printed once every vCPU is done) */
};
extern struct xt_config xt_cfgs[XT_MAX_CPUS];
#define xt_cfg (xt_cfgs[xt_cpu_index()])
/* The vCPUs the bench runs on (vcpus=, 1 by default; driver.c). */
unsigned xt_vcpus(void);

/* run.c: the generic measured loop for one case (unprivileged). */
long xt_run_case(void *c);
/* Set a reason shown in XT END (static string). */
void xt_set_reason(const char *reason);
const char *xt_reason(void);

/* driver.c: runs bench b (its parameters checked already) from XT BEGIN to XT END;
 * ready, when not NULL, is called after the METRIC lines, before the first case. */
void xt_run_bench(const struct xt_bench *b, void (*ready)(void)) __attribute__((noreturn));

/* main.c */
void xt_main(void) __attribute__((noreturn));
#endif
