/* cyclictest.c - runs cyclictest (Debian rt-tests) and turns its output into XT lines.
 *
 * Command: cyclictest -m -p <ct_priority, 95> --policy=fifo -i <interval_us, 1000>
 *   -t <threads> -a <cpus> -h <hist_us, 10000> -v --json=FILE (-l loops when
 *   iterations= is given, else -D <duration_s rounded up>; nsecs=1 adds -N).
 * Its stdout (-v: one "thread: cycle: latency" line per wakeup) goes to a tmpfs file,
 * so nothing reaches the console while it measures. Afterwards:
 *   - every -v value becomes a sample of metric <thread> (cyclictest_t<N>, ns), at
 *     t = clock at start + (cycle + 1) * interval (the planned wakeup; approximate);
 *   - XT HIST: log2 histogram of those values per thread;
 *   - the --json file gives per-thread cycles/min/avg/max and cyclictest's own
 *     linear microsecond histogram: XT META ct_*_t<N>= and ct_hist_t<N>_<part>=
 *     "us:count,..." (split over lines of <= 300 characters, ct_hist_parts_t<N>=; wakeups
 *     later than hist_us are counted as ct_overflows_t<N>, as cyclictest's own output does);
 *     cycles missing from the -v stream (its ring buffer overran) are reported as
 *     ct_lost_t<N> and an XT ERROR, never hidden; cyclictest never prints the -v
 *     values of its last few cycles (ct_unprinted_tail_t<N>, in the histogram only).
 *   - XT META window_ticks_<N>= (ns): the time around the cyclictest run (its start-up
 *     and exit included).
 * END status=pass when cyclictest exited 0 and its JSON was read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rt.h"

#define MAXT 16
#define HISTSTR 3000
struct ct_thread {
	uint64_t cycles, seen, next, gaps;   /* next: expected cycle; gaps: cycles skipped */
	uint64_t hsum;                       /* counts in the JSON histogram */
	char min[24], avg[24], max[24];
	char hist[HISTSTR];
	size_t hlen;
	bool htrunc;
	struct xt_hist log2;
};
static struct ct_thread th[MAXT];
static char version[32], rtflag[8];

static void on_json(const char *path, const char *value, void *ctx)
{
	unsigned n;
	char key[64];

	(void)ctx;
	if (!strcmp(path, "rt_test_version:"))
		snprintf(version, sizeof(version), "%s", value);
	else if (!strcmp(path, "sysinfo.realtime"))
		snprintf(rtflag, sizeof(rtflag), "%s", value);
	if (sscanf(path, "thread.%u.%63s", &n, key) != 2 || n >= MAXT)
		return;
	if (!strcmp(key, "cycles"))
		th[n].cycles = strtoull(value, NULL, 10);
	else if (!strcmp(key, "min"))
		snprintf(th[n].min, sizeof(th[n].min), "%s", value);
	else if (!strcmp(key, "avg"))
		snprintf(th[n].avg, sizeof(th[n].avg), "%s", value);
	else if (!strcmp(key, "max"))
		snprintf(th[n].max, sizeof(th[n].max), "%s", value);
	else if (!strncmp(key, "histogram.", 10)) {
		struct ct_thread *t = &th[n];
		int w;

		t->hsum += strtoull(value, NULL, 10);
		w = snprintf(t->hist + t->hlen, HISTSTR - t->hlen, "%s%s:%s", t->hlen ? "," : "",
				 key + 10, value);
		if (w < 0 || (size_t)w >= HISTSTR - t->hlen)
			t->htrunc = true;
		else
			t->hlen += (size_t)w;
	}
}

/* cyclictest's histogram as META lines of <= 300 characters (a console line is bounded):
 * ct_hist_t<N>_<part>="us:count,...", parts numbered from 0, ct_hist_parts_t<N>=count. */
static void print_hist(unsigned i, const struct ct_thread *t)
{
	const char *p = t->hist;
	unsigned part = 0;
	char chunk[304];

	while (*p) {
		size_t n = strlen(p) < 300 ? strlen(p) : 300;
		while (n < strlen(p) && n > 0 && p[n] != ',')
			n--;
		memcpy(chunk, p, n);
		chunk[n] = '\0';
		xt_meta("ct_hist_t%u_%u=\"%s\"", i, part++, chunk);
		p += n + (p[n] == ',');
	}
	xt_meta("ct_hist_parts_t%u=%u%s", i, part, t->htrunc ? " ct_hist_truncated=1" : "");
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = '\0';
	fclose(f);
	return buf;
}

static int run(void)
{
	uint64_t interval = xt_key_u64("interval_us");
	uint64_t hist_us = xt_key_u64("hist_us");
	uint64_t ctprio = xt_key_u64("ct_priority");
	bool nsecs = xt_key_bool("nsecs");
	unsigned nthreads = (unsigned)xt_param_u64("threads", (uint64_t)rt.ncpus);
	uint64_t unit = nsecs ? 1 : 1000, t_start, t_end;
	static char dir[] = "/tmp/xtalk-ct.XXXXXX", out[64], json[80], a_p[16], a_i[24], a_t[16],
		a_a[64], a_h[24], a_len[32], cmd[600], line[128];
	char *argv[32], *text;
	int n = 0, rc;
	FILE *f;

	if (nthreads < 1 || nthreads > MAXT)
		xt_badparam("threads", "expected 1..16");
	if (!mkdtemp(dir))
		rt_fault("mkdtemp /tmp");
	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(json, sizeof(json), "--json=%s/ct.json", dir);
	snprintf(a_p, sizeof(a_p), "-p%lu", (unsigned long)ctprio);
	snprintf(a_i, sizeof(a_i), "-i%lu", (unsigned long)interval);
	snprintf(a_t, sizeof(a_t), "-t%u", nthreads);
	snprintf(a_a, sizeof(a_a), "-a%s", xt_param_str("cpus", "0"));
	if (!xt_param_has("cpus"))
		snprintf(a_a, sizeof(a_a), "-a%d", rt.cpus[0]);
	snprintf(a_h, sizeof(a_h), "-h%lu", (unsigned long)hist_us);
	argv[n++] = "cyclictest";
	argv[n++] = "-m";
	argv[n++] = a_p;
	argv[n++] = "--policy=fifo";
	argv[n++] = a_i;
	argv[n++] = a_t;
	argv[n++] = a_a;
	if (!nsecs)
		argv[n++] = a_h;
	else
		argv[n++] = "-N";
	argv[n++] = "-v";
	argv[n++] = json;
	if (rt.iterations)
		snprintf(a_len, sizeof(a_len), "-l%lu", (unsigned long)rt.iterations);
	else
		snprintf(a_len, sizeof(a_len), "-D%lu", rt.duration_s > 0 ? (unsigned long)(rt.duration_s + 0.999) : 10ul);
	argv[n++] = a_len;
	argv[n] = NULL;

	rt_tool_begin("cyclictest", argv, "cyclictest -v values; --json summary and histogram");
	if (!xt_ring_open(RT_NS, xt_param_u64("buffer_slots", 1u << 20), 1))
		rt_fail("sample ring unusable");
	for (unsigned i = 0; i < nthreads; i++) {
		char name[32];
		snprintf(name, sizeof(name), "cyclictest_t%u", i);
		xt_metric(i, name, "cycles", "latency", "kernel");
		xt_hist_init(&th[i].log2, 40);
	}

	rt_console_flush();
	t_start = rt_now();
	rc = rt_spawn_wait(argv, out);
	t_end = rt_now();
	if ((f = fopen(out, "r"))) {
		while (fgets(line, sizeof(line), f)) {
			unsigned t;
			unsigned long c;
			long v;
			if (sscanf(line, " %u: %lu: %ld", &t, &c, &v) != 3 || t >= nthreads || v < 0)
				continue;
			xt_sample(t, t_start + (c + 1) * interval * 1000, (uint64_t)v * unit, 0);
			xt_hist_add(&th[t].log2, (uint64_t)v * unit);
			th[t].seen++;
			if (c > th[t].next)
				th[t].gaps += c - th[t].next;
			th[t].next = c + 1;
		}
		fclose(f);
	}
	snprintf(out + strlen(dir), sizeof(out) - strlen(dir), "/ct.json");
	text = slurp(out);
	if (text && !rt_json_walk(text, on_json, NULL))
		xt_error(NULL, "cyclictest JSON did not parse");
	unlink(out);                            /* ct.json */
	snprintf(out + strlen(dir), sizeof(out) - strlen(dir), "/out");
	unlink(out);
	rmdir(dir);
	xt_meta("ct_version=%s ct_realtime=%s ct_exit=%d", version[0] ? version : "unknown",
		rtflag[0] ? rtflag : "unknown", rc);
	for (unsigned i = 0; i < nthreads; i++) {
		struct ct_thread *t = &th[i];
		/* cyclictest does not print the -v values of its last few cycles: that tail is
		 * reported apart; cycles missing in the middle (buffer overrun) are losses. */
		uint64_t tail = t->cycles > t->next ? t->cycles - t->next : 0, lost = t->gaps;
		if (tail > 256)
			lost += tail, tail = 0;
		xt_meta("ct_cycles_t%u=%lu ct_min_us_t%u=%s ct_avg_us_t%u=%s ct_max_us_t%u=%s ct_lost_t%u=%lu "
			"ct_unprinted_tail_t%u=%lu", i, (unsigned long)t->cycles, i, t->min[0] ? t->min : "-",
			i, t->avg[0] ? t->avg : "-", i, t->max[0] ? t->max : "-", i, (unsigned long)lost,
			i, (unsigned long)tail);
		/* wakeups later than hist_us are not in cyclictest's histogram: flagged, not dropped */
		xt_meta("ct_overflows_t%u=%lu ct_hist_us=%lu", i,
			(unsigned long)(t->cycles > t->hsum ? t->cycles - t->hsum : 0), (unsigned long)hist_us);
		print_hist(i, t);
		xt_window(i, t_end - t_start);
		if (lost)
			xt_error(NULL, "cyclictest -v buffer overran: some samples lost (see ct_lost_t*)");
	}
	xt_ring_drain();
	for (unsigned i = 0; i < nthreads; i++)
		xt_hist_print(&th[i].log2, i);
	if (rc != 0 || !text) {
		snprintf(cmd, sizeof(cmd), rc == 127 ? "cyclictest not found" : !text ?
			 "cyclictest wrote no JSON (exit %d)" : "cyclictest exit status %d", rc);
		xt_set_reason(cmd);
		return XT_FAIL;
	}
	return XT_PASS;
}

static const struct xt_key keys[] = {
	{ "interval_us", XT_U64, "[50,10000000]", "1000" },
	{ "hist_us", XT_U64, NULL, "10000" },
	{ "ct_priority", XT_U64, "[1,99]", "95" },
	{ "threads", XT_U64, "[1,16]", NULL },         /* 16: MAXT; default: one per CPU of cpus= */
	{ "nsecs", XT_BOOL, NULL, "0" },
	XT_KEYS_END
};
const struct rt_tool rt_tool_cyclictest = { "cyclictest", "measurer", keys, run, "cyclictest_t<N>", "latency" };
