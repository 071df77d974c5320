/* hackbench.c - runs rt-tests' hackbench (seed 003's task-dispatch benchmark) and records
 * the time of each run.
 *
 * Command: hackbench -g <groups, 1> -f <fds, 20> -l <loops, 100> -s <datasize, 100>
 *   -P (mode=process, default) or -T (mode=thread), -p when pipe=1 (else socketpairs).
 * A group is fds senders and fds receivers (40 tasks by default: seed 003's "1*40
 * tasks"); every sender sends loops messages to every receiver of its group. Its output
 * goes to a tmpfs file, nothing reaches the console while it runs. One sample per run:
 * hackbench's own "Time: S" in ns (metric `hackbench`, kind duration, lower is better;
 * hackbench prints ms, so a run shorter than 0.5 ms is 0), t = the clock when it exited. Runs iterations= times (default 10), or as many times as
 * fit in duration_s; warmup= unrecorded runs first. XT META window_ticks_0 = first
 * run's start to the last one's end (fork and exec of hackbench included), hb_runs,
 * hb_tasks. END status=fail when a run exits non-zero or prints no time.
 * Caveats: hackbench runs at SCHED_OTHER (the wrapper waits at SCHED_FIFO, blocked) on the
 * CPUs the wrapper may use (not pinned to cpus[0]); its time is its own gettimeofday
 * around the message passing, so task creation is outside it (inside the window).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rt.h"

#define DEFAULT_RUNS 10

/* hackbench's "Time: S" line in path as *ns (it prints ms: a short run may be 0); false
 * when there is none. */
static bool time_of(const char *path, uint64_t *ns)
{
	char line[160];
	bool found = false;
	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Time:", 5)) {
			*ns = (uint64_t)(strtod(line + 5, NULL) * 1e9 + 0.5);
			found = true;
		}
	fclose(f);
	return found;
}

static int run(void)
{
	static char a_g[24], a_f[24], a_l[32], a_s[32], out[] = "/tmp/xtalk-hb.XXXXXX", reason[96];
	uint64_t groups = xt_key_u64("groups"), fds = xt_key_u64("fds");
	uint64_t runs = rt.iterations ? rt.iterations : rt.duration_s > 0 ? 0 : DEFAULT_RUNS;
	uint64_t t_first, t_end = 0, deadline, done = 0;
	char *argv[16];
	int n = 0, fd, rc = 0;

	snprintf(a_g, sizeof(a_g), "-g%lu", (unsigned long)groups);
	snprintf(a_f, sizeof(a_f), "-f%lu", (unsigned long)fds);
	snprintf(a_l, sizeof(a_l), "-l%lu", (unsigned long)xt_key_u64("loops"));
	snprintf(a_s, sizeof(a_s), "-s%lu", (unsigned long)xt_key_u64("datasize"));
	argv[n++] = "hackbench";
	argv[n++] = a_g;
	argv[n++] = a_f;
	argv[n++] = a_l;
	argv[n++] = a_s;
	argv[n++] = strcmp(xt_key_str("mode"), "thread") ? "-P" : "-T";
	if (xt_key_bool("pipe"))
		argv[n++] = "-p";
	argv[n] = NULL;
	if ((fd = mkstemp(out)) < 0)
		rt_fault("mkstemp /tmp");
	close(fd);

	rt_tool_begin("hackbench", argv, "hackbench's own Time: of each run, one run per sample");
	xt_meta("hb_tasks=%lu", (unsigned long)(groups * 2 * fds));
	if (!xt_ring_open(RT_NS, xt_param_u64("buffer_slots", runs ? runs : 1u << 16), 1))
		rt_fail("sample ring unusable");
	xt_metric(0, "hackbench", "cycles", "duration", "kernel");
	rt_console_flush();
	for (uint64_t w = 0; w < rt.warmup && rc == 0; w++)
		rc = rt_spawn_wait(argv, out);
	t_first = rt_now();
	deadline = t_first + (uint64_t)(rt.duration_s * 1e9);
	while (rc == 0 && (runs ? done < runs : rt_now() < deadline)) {
		uint64_t ns;
		rc = rt_spawn_wait(argv, out);
		t_end = rt_now();
		if (rc == 0 && time_of(out, &ns)) {
			xt_sample(0, t_end, ns, 0);
			done++;
		} else if (rc == 0) {
			rc = -2;                         /* ran but printed no time */
		}
	}
	unlink(out);
	xt_window(0, t_end > t_first ? t_end - t_first : 0);
	xt_meta("hb_runs=%lu", (unsigned long)done);
	xt_ring_drain();
	if (rc == 0)
		return XT_PASS;
	snprintf(reason, sizeof(reason), rc == 127 ? "hackbench not found" : rc == -2 ?
		 "hackbench printed no Time:" : "hackbench exit status %d", rc);
	xt_set_reason(reason);
	return XT_FAIL;
}

static const struct xt_key keys[] = {
	{ "groups", XT_U64, "[1,1000]", "1" },
	{ "fds", XT_U64, "[1,1000]", "20" },
	{ "loops", XT_U64, "[1,1000000000]", "100" },
	{ "datasize", XT_U64, "[1,1048576]", "100" },
	{ "mode", XT_WORD, "process|thread", "process" },
	{ "pipe", XT_BOOL, NULL, "0" },
	XT_KEYS_END
};
const struct rt_tool rt_tool_hackbench = { "hackbench", "measurer", keys, run, "hackbench", "duration" };
