/* main.c - the entry every probe platform calls after init: xt_main().
 *
 * Parses the command line, picks the bench (bench=) from guests/lib/bench_list.h,
 * checks keys and values against their declarations (common keys and the bench's) and
 * runs it with driver.c's xt_run_bench. xt_catalogue prints the bench table as the
 * catalogue (the native program's `catalogue` argument). The POSIX suite (xtalk-rt)
 * links driver.c without this file: it runs a few of these benches from a table of
 * its own.
 */
#include "xt.h"

#define XT_BENCH(n) extern const struct xt_bench xt_bench_##n;
#include "bench_list.h"
#undef XT_BENCH

static const struct xt_bench *const benches[] = {
#define XT_BENCH(n) &xt_bench_##n,
#include "bench_list.h"
#undef XT_BENCH
};
#define NBENCH (sizeof(benches) / sizeof(benches[0]))

static const struct xt_bench *find_bench(const char *name)
{
	static char names[256];
	size_t n = 0;

	for (unsigned i = 0; i < NBENCH; i++)
		if (!xt_strcmp(benches[i]->name, name))
			return benches[i];
	n = (size_t)xt_snprintf(names, sizeof(names), "unknown benchmark; known:");
	for (unsigned i = 0; i < NBENCH && n < sizeof(names); i++)
		n += (size_t)xt_snprintf(names + n, sizeof(names) - n, " %s", benches[i]->name);
	xt_badparam("bench", names);
}

void xt_catalogue(void)
{
	xt_cat_suite("probe", "xtalk-bench", NULL, NULL);
	for (unsigned i = 0; i < NBENCH; i++)
		xt_cat_xt_bench(benches[i]);
	xt_cat_end();
}

void xt_main(void)
{
	const struct xt_bench *b;

	xt_params_init(xt_cmdline());
	if (!xt_param_has("bench"))
		xt_badparam("bench", "missing: give bench=NAME");
	b = find_bench(xt_param_str("bench", ""));
	xt_params_check(b->keys);
	xt_run_bench(b, NULL);
}
