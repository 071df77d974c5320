/* bench_list.h - every benchmark and stressor, one XT_BENCH(name) per line.
 * A new bench: add guests/bench/<name>.c defining `const struct xt_bench
 * xt_bench_<name>` and one line here. main.c expands this list twice. */
XT_BENCH(qsort)
XT_BENCH(pointer_chase)
XT_BENCH(membw)
XT_BENCH(hidden_latency)
XT_BENCH(cache_thrash)
XT_BENCH(cpu_spin)
XT_BENCH(basicmath)
XT_BENCH(bitcount)
XT_BENCH(susan)
XT_BENCH(membus)
XT_BENCH(memcpy)
XT_BENCH(selftest)
XT_BENCH(timer_latency)
XT_BENCH(sched_metric)
XT_BENCH(vmexit_storm)
XT_BENCH(irq_storm)
