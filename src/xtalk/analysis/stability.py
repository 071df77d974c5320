"""Everything that makes a number doubtful, as a list of warnings the report always
shows: failed/degraded/interrupted runs, lost samples, guest errors (stressors' too), histogram overflow, too few
samples for a percentile, runs that disagree, counter frequencies that differ, late
timeline events, measurement overhead, paired windows that split the real-time
throttle's periods, and host noise flags (no isolated CPUs, no
nohz_full, unknown or non-performance governor, nested virtualisation, real-time
throttling of real-time workloads, non-real-time scheduling). Each warning: {level: error|warning|info, scope, message}.
Thresholds: RUN_SPREAD_PCT between run medians, OVERHEAD_PCT of the median,
LATE_EVENT_MS for a timeline event.
"""
from __future__ import annotations

from ..host.metadata import rt_block_us
from .wording import share
from .windows import SETTLE_SHARE

RUN_SPREAD_PCT = 5.0
OVERHEAD_PCT = 1.0
LATE_EVENT_MS = 50.0
MAX_NAMED = 5  # metrics named in one grouped warning


def _w(level: str, scope: str, message: str) -> dict:
    return {"level": level, "scope": scope, "message": message}


def measuring_overhead(run: dict) -> float | None:
    """The cycles the measurer's own timing costs (XT META overhead_cycles), if it said."""
    overhead = (run.get("guest_meta") or {}).get("overhead_cycles")
    return float(overhead) if overhead not in (None, "") else None


def run_warnings(runs: list[dict], events_by_run: dict[str, list[dict]]) -> list[dict]:
    out = []
    for r in runs:
        rid = r["run_id"]
        if r.get("warmup"):
            out.append(_w("info", rid, "warm-up run: excluded from the statistics"))
        elif r.get("status") != "pass":
            out.append(_w("warning" if r.get("status") == "degraded" else "error", rid,
                          f"run status {r.get('status')}: {r.get('reason') or 'no reason given'}"
                          " — excluded from the statistics"))
        lost = (r.get("lost_samples") or 0) + (r.get("ring_lost_samples") or 0)
        if lost:
            out.append(_w("warning", rid, f"{lost} samples lost (sequence gaps / ring overwrites)"))
        for err in r.get("guest_errors") or []:
            out.append(_w("warning", rid, f"guest error: {err}"))
        for name, watch in (r.get("stressors_watch") or {}).items():
            for err in watch.get("errors") or []:
                out.append(_w("warning", rid, f"stressor {name}: guest error: {err}"))
        for name, facts in (r.get("guests") or {}).items():
            if facts.get("sched_refused"):
                out.append(_w("warning", rid, f"{name}: scheduling class refused ({facts['sched_refused']})"))
        buckets = int((r.get("measurer") or {}).get("params", {}).get("hist_buckets", 40))
        for metric, hist in (r.get("histograms") or {}).items():
            over = sum(c for b, c in hist.items() if int(b) >= buckets - 1)
            if over:
                out.append(_w("warning", rid, f"metric {metric}: {over} values in the guest histogram's overflow bucket"))
        for ev in events_by_run.get(rid, []):
            if ev.get("error_ms") is not None and abs(ev["error_ms"]) > LATE_EVENT_MS:
                out.append(_w("warning", rid, f"timeline event {ev.get('action')} {ev.get('target')} executed "
                              f"{ev['error_ms']:.0f} ms off its planned time"))
    return out


def few_samples(per_config: list[dict]) -> list[dict]:
    """Metrics with few samples or with tail quantiles resting on few samples: one warning
    per configuration and kind of doubt, naming the metrics (an imported log of 47
    operations with one sample each gives two lines, not 94)."""
    groups: dict[tuple[str, str, str], list[str]] = {}
    for row in per_config:
        if not row.get("n"):
            continue
        if row["n"] < 100:
            doubt = ("warning", f"only {row['n']} samples: percentiles above the median are coarse")
        elif row.get("unresolved"):
            doubt = ("info", f"fewer than 10 samples above {', '.join(row['unresolved'])}: shown, but they are "
                             "(close to) the observed maximum, not a tail estimate")
        else:
            continue
        groups.setdefault((row["config_id"], *doubt), []).append(row["metric"])
    out = []
    for (cid, level, message), metrics in groups.items():
        if len(metrics) == 1:
            out.append(_w(level, f"{cid}/{metrics[0]}", message))
            continue
        named = ", ".join(metrics[:MAX_NAMED]) + (f" and {len(metrics) - MAX_NAMED} more" if len(metrics) > MAX_NAMED
                                                  else "")
        out.append(_w(level, cid, f"{len(metrics)} metrics ({named}): {message}"))
    return out


def data_warnings(per_config: list[dict], per_run: list[dict], runs: list[dict]) -> list[dict]:
    out = few_samples(per_config)
    overhead = {r["run_id"]: measuring_overhead(r) for r in runs}
    for row in per_config:
        scope = f"{row['config_id']}/{row['metric']}"
        if not row.get("n"):
            out.append(_w("error", scope, "no samples"))
            continue
        if row.get("overflow"):
            out.append(_w("warning", scope, f"{row['overflow']} samples flagged overflow/saturated (flags bit 0): "
                          "kept, but their value is a lower bound"))
        if (row.get("freq_spread") or 0) > 1e-4:
            out.append(_w("warning", scope, f"counter frequency differs by {row['freq_spread'] * 100:.3f}% between "
                          "runs: ns values use the mean"))
        medians = [r["median"] for r in per_run if r["config_id"] == row["config_id"]
                   and r["metric"] == row["metric"] and r.get("median")]
        if len(medians) > 1 and row.get("median"):
            spread = (max(medians) - min(medians)) / row["median"] * 100
            if spread > RUN_SPREAD_PCT:
                out.append(_w("warning", scope, f"runs disagree: run medians differ by {spread:.1f}% of the pooled "
                              "median (run-to-run variation; see the per-run table)"))
        # the overhead is a time in ticks: no share of a count or a rate (those have no WCET)
        ovh = [overhead.get(r["run_id"]) for r in per_run if r["config_id"] == row["config_id"]
               and row.get("wcet") is not None]
        ovh = [o for o in ovh if o]
        if ovh and row.get("median") and max(ovh) / row["median"] * 100 > OVERHEAD_PCT:
            out.append(_w("info", scope, f"measurement overhead {max(ovh):.0f} ticks is "
                          f"{max(ovh) / row['median'] * 100:.1f}% of the median (not subtracted)"))
    return out


def noise_flags(host: dict, runs: list[dict]) -> list[str]:
    """What of the host may have disturbed the runs; nothing of the host where the campaign
    holds no host facts (logs imported from elsewhere: xtalk never saw that host)."""
    flags = host_flags(host) + rt_throttling_flags(host, runs) if host else []
    return flags + run_flags(runs)


def real_time_scheds(runs: list[dict]) -> list[str]:
    """The real-time policies (fifo, rr) the runs' workloads ran under, sorted."""
    return sorted({g.get("sched") for r in runs for g in (r.get("guests") or {}).values()} & {"fifo", "rr"})


def rt_throttling_flags(host: dict, runs: list[dict]) -> list[str]:
    """Real-time workloads on a kernel that throttles them: one that spins (a probe) loses
    a block of up to period - runtime every period (on a 6.x kernel seen as a ~50 ms gap
    each second)."""
    iso = host.get("isolation") or {}
    block = rt_block_us(iso)
    real_time = real_time_scheds(runs)
    if not real_time or block is None:
        return []
    runtime, period = iso["rt_runtime_us"], iso["rt_period_us"]
    return [f"real-time throttling: the kernel lets {' and '.join(real_time).upper()} tasks run {runtime:,} µs "
            f"of every {period:,} µs (kernel.sched_rt_runtime_us), so a workload that spins loses up to "
            f"{block / 1000:g} ms each {period / 1000:g} ms (to lift it for a campaign: "
            f"sysctl -w kernel.sched_rt_runtime_us=-1)"]


def paired_throttle_warnings(host: dict, runs: list[dict], paired: dict | None) -> list[dict]:
    """Paired windows against the real-time throttle: a spinning real-time measurer loses
    one block each throttle period, and a kept window of a whole number of periods holds
    the same share of it at any phase; any other length holds one block more or less as
    the phase drifts, a step of block / kept in that window's statistic (seen in CI: 0.9 s
    windows against a 1 s period, 5.4 points a window, an interval of +-3.5 points)."""
    iso = (host or {}).get("isolation") or {}
    block = rt_block_us(iso)
    real_time = real_time_scheds(runs)
    if paired is None or block is None or not real_time:
        return []
    period_s = iso["rt_period_us"] / 1e6
    settle = paired.get("settle_s")
    kept = {state: length - (settle if settle is not None else SETTLE_SHARE * length)
            for state, length in (("off", paired.get("off_s", 1.0)), ("on", paired.get("on_s", 1.0)))}
    split = {state: k for state, k in kept.items() if k > 0 and abs(k / period_s - round(k / period_s)) > 0.02}
    if not split:
        return []
    held = ", ".join(f"{k:g} s {state}" for state, k in split.items())
    step = max(block / 1e6 / k for k in split.values())
    whole = max(1, round(max(kept.values()) / period_s)) * period_s
    return [_w("warning", "campaign", f"paired windows against the real-time throttle: the windows keep {held}, not "
                                      f"a whole number of its {period_s:g} s periods, so each holds one more or one "
                                      f"fewer of its {block / 1000:g} ms blocks as their phase drifts (a step of "
                                      f"{share(step * 100)} of the CPU in a window: a wider interval, a middle that moves);"
                                      f" windows of {whole * 1.1:g} s with [paired] settle_s = {whole * 0.1:g} keep "
                                      f"whole periods")]


def host_flags(host: dict) -> list[str]:
    flags = []
    iso = host.get("isolation") or {}
    if not iso.get("isolcpus"):
        flags.append("no isolated CPUs (isolcpus): other host tasks may run on the measured CPU")
    if not iso.get("nohz_full"):
        flags.append("no nohz_full: the scheduler tick interrupts the measured CPU")
    gov = host.get("governors")
    if isinstance(gov, dict):
        other = sorted({g for g in gov.values() if g != "performance"})
        if other:
            flags.append(f"CPU frequency governor {', '.join(other)} (not performance): frequency may vary")
    elif gov:
        flags.append(f"frequency governor: {gov}")
    kvm = host.get("kvm") or {}
    if kvm.get("emulates_ring0") or kvm.get("kind") == "kvm_pvm":
        flags.append("the host is itself a virtual machine (kvm-pvm): its hypervisor adds noise xtalk cannot see")
    return flags


def run_flags(runs: list[dict]) -> list[str]:
    flags = []
    scheds = {g.get("sched") for r in runs for g in (r.get("guests") or {}).values()}
    if "other" in scheds:
        flags.append("workloads ran with SCHED_OTHER (not real-time)")
    for r in runs:  # per-run host noise accounting (host/noise.py)
        noise = r.get("noise") or {}
        for cpu in noise.get("noisy_cpus") or []:
            pct = noise["cpus"][cpu]["foreign_pct"]
            flags.append(f"run {r['run_id']}: CPU {cpu} spent {share(pct)} of the run on work outside it "
                         f"(threshold {noise.get('threshold_pct', 5):g}%)")
    return flags
