/* stress_ng.c - stressor: runs stress-ng (Debian's) with one stressor class.
 *
 * Parameters: class= (required: cpu, cache, vm, memcpy, stream, io, hdd, iomix, matrix,
 * ...: the words of its declaration in keys below), workers= (default 1), method= (--<class>-method), bytes=
 * (--vm-bytes / --hdd-bytes / --iomix-bytes; vm default 64m), opts= extra stress-ng
 * options separated by commas (e.g. opts=--vm-keep,--cache-level,3), duration_s= (0:
 * until stopped; else --timeout), cpus= (--taskset). XT BEGIN (role stressor by default), XT META cmd=,
 * then stress-ng runs with its output on the console; XT END pass when it exits 0.
 * Temporary files go to /tmp (--temp-path).
 */
#include <stdio.h>
#include <string.h>
#include "rt.h"

static int run(void)
{
	const char *cls = xt_key_str("class");
	static char a_workers[16], a_class[40], a_method[48], a_method_v[64], a_bytes[40],
		a_bytes_v[32], a_timeout[32], opts[512], cmd[1024];
	char *argv[64];
	int n = 0, rc;

	if (!cls)
		xt_badparam("class", "missing: class=cpu|cache|vm|memcpy|stream|io|...");
	argv[n++] = "stress-ng";
	snprintf(a_class, sizeof(a_class), "--%s", cls);
	snprintf(a_workers, sizeof(a_workers), "%lu", (unsigned long)xt_key_u64("workers"));
	argv[n++] = a_class;
	argv[n++] = a_workers;
	if (xt_param_has("method")) {
		snprintf(a_method, sizeof(a_method), "--%s-method", cls);
		snprintf(a_method_v, sizeof(a_method_v), "%s", xt_param_str("method", ""));
		argv[n++] = a_method;
		argv[n++] = a_method_v;
	}
	if (xt_param_has("bytes") || !strcmp(cls, "vm")) {
		snprintf(a_bytes, sizeof(a_bytes), "--%s-bytes", cls);
		snprintf(a_bytes_v, sizeof(a_bytes_v), "%s", xt_param_str("bytes", "64m"));
		argv[n++] = a_bytes;
		argv[n++] = a_bytes_v;
	}
	if (rt.duration_s > 0) {
		snprintf(a_timeout, sizeof(a_timeout), "%lus", (unsigned long)(rt.duration_s + 0.999));
		argv[n++] = "--timeout";
		argv[n++] = a_timeout;
	}
	if (xt_param_has("cpus")) {
		argv[n++] = "--taskset";
		argv[n++] = (char *)xt_param_str("cpus", "0");
	}
	argv[n++] = "--temp-path";
	argv[n++] = "/tmp";
	argv[n++] = "--metrics-brief";
	snprintf(opts, sizeof(opts), "%s", xt_key_str("opts"));
	for (char *tok = strtok(opts, ","); tok && n < 62; tok = strtok(NULL, ","))
		argv[n++] = tok;
	argv[n] = NULL;

	rt_tool_begin("stress_ng", argv, NULL);
	rc = rt_spawn_wait(argv, NULL);
	if (rc == 0)
		return XT_PASS;
	snprintf(cmd, sizeof(cmd), rc == 127 ? "stress-ng not found" : "stress-ng exit status %d", rc);
	xt_set_reason(cmd);
	return XT_FAIL;
}

static const struct xt_key keys[] = {
	{ "class", XT_WORD, "cpu|cache|vm|memcpy|stream|io|hdd|iomix|matrix|switch|mq|sem|timer", NULL },
	{ "workers", XT_U64, NULL, "1" },              /* 0: one per CPU */
	{ "method", XT_TEXT, NULL, NULL },
	{ "bytes", XT_TEXT, NULL, NULL },               /* default: 64m for class vm */
	{ "opts", XT_TEXT, NULL, "" },
	XT_KEYS_END
};
const struct rt_tool rt_tool_stress_ng = { "stress_ng", "stressor", keys, run, NULL, NULL };
