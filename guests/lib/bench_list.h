/* bench_list.h - every benchmark and stressor, one XT_BENCH(name) per line.
 * A new bench: add guests/bench/<name>.c defining `const struct xt_bench
 * xt_bench_<name>` and one line here. main.c expands this list twice. */
XT_BENCH(qsort)
XT_BENCH(pointer_chase)
XT_BENCH(membw)
XT_BENCH(hidden_latency)
XT_BENCH(cache_thrash)
XT_BENCH(cpu_spin)
