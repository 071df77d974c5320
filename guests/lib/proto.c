/* proto.c - emitters for the console protocol (docs/protocol.md section 2).
 *
 * Every line starts with "XT ", then the record type, then run=<id>. Only called
 * outside measured windows (they write to the console, which may exit to the host).
 * xt_end maps the status to the exit status: pass 0, fail/fault 1, badparam 2.
 */
#include "xt.h"

static const char *reason_text;

void xt_set_reason(const char *reason)
{
	reason_text = reason;
}

const char *xt_reason(void)
{
	return reason_text;
}

const char *xt_arch_name(void)
{
#if defined(__x86_64__)
	return "x86_64";
#elif defined(__aarch64__)
	return "arm64";
#else
	return "unknown";
#endif
}

void xt_begin(const char *bench, const char *role, uint64_t freq_hz)
{
	/* t0: the counter as the line is written; the host maps it through the ring's
	 * heartbeat pairs to place the run's time origin on the guest's own clock. */
	xt_printf("XT BEGIN run=%s bench=%s role=%s arch=%s freq_hz=%lu platform=%s t0=%llu\n",
		  xt_run_id(), bench, role, xt_arch_name(), (unsigned long)freq_hz,
		  xt_platform_name(), (unsigned long long)xt_counter());
}

void xt_meta(const char *fmt, ...)
{
	char body[400];
	va_list ap;

	va_start(ap, fmt);
	xt_vsnprintf(body, sizeof(body), fmt, ap);
	va_end(ap);
	xt_printf("XT META run=%s %s\n", xt_run_id(), body);
}

void xt_metric(unsigned id, const char *name, const char *unit, const char *kind,
	       const char *kpi)
{
	xt_printf("XT METRIC run=%s id=%u name=%s unit=%s kind=%s kpi=%s\n", xt_run_id(), id,
		  name, unit, kind ? kind : "duration", kpi);
}

void xt_metric_vcpu(unsigned id, const char *name, unsigned vcpu, const char *unit,
		    const char *kind, const char *kpi)
{
	xt_printf("XT METRIC run=%s id=%u name=%s_vcpu%u vcpu=%u unit=%s kind=%s kpi=%s\n", xt_run_id(),
		  id, name, vcpu, vcpu, unit, kind ? kind : "duration", kpi);
}

void xt_window(unsigned id, uint64_t ticks)
{
	xt_meta("window_ticks_%u=%lu", id, (unsigned long)ticks);
}

void xt_work(uint64_t per_pass, const char *unit)
{
	xt_meta("work_per_pass=%lu work_unit=%s", (unsigned long)per_pass, unit);
}

void xt_error(const char *param, const char *msg)
{
	if (param)
		xt_printf("XT ERROR run=%s param=%s msg=\"%s\"\n", xt_run_id(), param, msg);
	else
		xt_printf("XT ERROR run=%s msg=\"%s\"\n", xt_run_id(), msg);
}

void xt_end(int status, bool with_samples, const char *reason)
{
	static const char *const names[] = { "pass", "fail", "badparam", "fault" };
	const char *name = status >= 0 && status <= XT_FAULT ? names[status] : "fail";
	char tail[200] = "";
	size_t n = 0;

	if (with_samples)
		n += (size_t)xt_snprintf(tail, sizeof(tail), " samples=%lu",
					 (unsigned long)xt_ring_written());
	if (reason && n < sizeof(tail))
		xt_snprintf(tail + n, sizeof(tail) - n, " reason=\"%s\"", reason);
	xt_printf("XT END run=%s status=%s%s\n", xt_run_id(), name, tail);
	xt_exit(status == XT_PASS ? 0 : status == XT_BADPARAM ? 2 : 1);
}
