"""The report's tables as plain data (title, headers, rows of strings, note), built from
an analysis result by sections.py and rendered by html.py, markdown.py and terminal.py.

Every number is formatted by analysis/wording.py (the one formatter) and every table
says its unit (a column or its note). A time metric's counter ticks and time are shown side
by side in one cell, "ticks (time)", the time converted with the counter frequency of the
runs; a count or rate keeps its own unit in every cell and has no WCET. Quantiles resting
on fewer than 10 samples above them are marked with '*'. Nothing is filtered out.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..analysis import wording
from ..analysis.wording import in_ticks
from ..plugins import BACKENDS


@dataclass
class Table:
    key: str
    title: str
    headers: list[str]
    rows: list[list[str]] = field(default_factory=list)
    note: str = ""
    compact: tuple[str, ...] = ()  # the main columns of a wide table (HTML: the rest behind a toggle)
    empty: str = "none"            # what no row means (the terminal says it)


def num(v, digits: int = 0) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int) or (isinstance(v, float) and digits == 0 and abs(v) >= 1000):
        return f"{v:,.0f}"
    return f"{v:,.{digits}f}" if isinstance(v, float) else str(v)


def sig(v, digits: int = 3) -> str:
    return "-" if v is None else f"{v:.{digits}g}"


def ci(pair) -> str:
    return "" if not pair else f" [{pair[0]:+.1f}, {pair[1]:+.1f}]"


def pval(p) -> str:
    return "-" if p is None else "<1e-9" if p < 1e-9 else f"{p:.2g}"


def tick_cell(row: dict, key: str, unit: str = "cycles") -> str:
    v = row.get(key)
    if v is None:
        return "-"
    if not in_ticks(unit):
        text = wording.quantity(v, unit, None)
    else:
        text = num(v, 0) + (f" ({wording.duration(row[f'{key}_ns'])})" if f"{key}_ns" in row else "")
    if key in (row.get("unresolved") or []):
        text += " *"
    return text


STAT_COLS = (("min", "min"), ("q1", "Q1"), ("median", "median"), ("q3", "Q3"), ("max", "max"),
             ("mean", "mean"), ("sd", "sd"), ("p90", "p90"), ("p99", "p99"), ("p999", "p99.9"),
             ("p9999", "p99.99"))


def stats_table(rows: list[dict], units: dict, per_run: bool = False) -> Table:
    first = ["run", "config"] if per_run else ["config", "runs"]
    compact = (*first, "metric", "n", "median", "p99", "max")
    t = Table("stats_runs" if per_run else "stats", "Statistics per run" if per_run else
              "Statistics per configuration", first + ["metric", "n"] + [h for _, h in STAT_COLS] +
              ["skewness", "kurtosis", "quantiles", "unit"],
              note="times: counter ticks (time), the max is the observed WCET; counts and rates: the value in "
                   "its own unit (the unit column), no WCET; * = fewer than 10 samples above this quantile; "
                   "skewness G1 and excess "
                   "kurtosis G2 (bias-corrected, 0 for a normal distribution); sd with n-1.", compact=compact,
              empty="no statistics: no passing run has samples")
    for r in rows:
        unit = units.get(r["metric"], "cycles")
        lead = [r["run_id"], r["config_id"]] if per_run else [r["config_id"], num(r.get("runs"))]
        t.rows.append(lead + [r["metric"], num(r.get("n"))] + [tick_cell(r, k, unit) for k, _ in STAT_COLS]
                      + [sig(r.get("skew")), sig(r.get("kurtosis")),
                         "exact" if r.get("exact_quantiles") else "histogram (±0.05%)", unit])
    return t


def deadline_table(rows: list[dict]) -> Table:
    t = Table("deadlines", "Samples above the spec's deadlines",
              ["metric", "config", "deadline", "n", "above", "share above", "WCET", "WCET vs deadline"],
              note="above: samples above the deadline, of n; WCET: the largest sample, ticks (time); WCET vs "
                   "deadline: how far it is above (+) or below (-) the deadline, in %.")
    for r in rows:
        limit = wording.duration(r["deadline"]) if r["unit"] == "ns" else f"{num(r['deadline'])} ticks"
        t.rows.append([r["metric"], r["config_id"], limit, num(r["n"]), num(r["above"]),
                       wording.share(r["rate"] * 100) if r.get("rate") is not None else "-",
                       f"{num(r['wcet'])} ({wording.duration(r.get('wcet_ns'))})", wording.percent(r.get("margin_pct"))])
    return t


def measured(v, unit: str, ns_per_tick: float | None) -> str:
    """A sample's value: a time as "ticks (time)", a count or rate in its own unit."""
    if v is None or not in_ticks(unit):
        return wording.quantity(v, unit, None)
    return num(v, 0) + (f" ({wording.duration(v * ns_per_tick)})" if ns_per_tick else " cycles")


def outlier_table(rows: list[dict], units: dict) -> Table:
    t = Table("outliers", "Largest samples (thesis Table 5.1)",
              ["metric", "config", "rank", "median", "outlier", "x median", "run", "sample #", "t in run (s)"],
              note="times: counter ticks (time); counts and rates in their own unit. Never trimmed: these "
                   "samples are in every statistic above.")
    for r in rows:
        unit, per_tick = units.get(r["metric"], "cycles"), r.get("ns_per_tick")
        t.rows.append([r["metric"], r["config_id"], str(r["rank"]), measured(r["median"], unit, per_tick),
                       measured(r["value"], unit, per_tick), wording.times(r.get("x_median")),
                       r["run_id"], num(r["index"]), wording.seconds(r.get("t_s"))])
    return t


def rampup_table(rows: list[dict], excluded: dict, units: dict) -> Table:
    t = Table("rampup", "Start-up ramp (thesis Table 5.4)",
              ["run", "metric", "first sample", "median", "first / median", "warm-up (MSER-5)",
               "head vs steady", "p", "significant", "excluded"],
              note="first / median: the first sample as a multiple of the run's median (a cold start: caches, "
                   "page faults); warm-up length by MSER-5 on the run's samples; significant = Mann-Whitney "
                   "p < 0.001 and >= 1% median difference; only significant warm-ups are excluded by "
                   "--exclude-rampup.")
    for r in rows:
        unit, per_tick = units.get(r["metric"], "cycles"), r.get("ns_per_tick")
        first, median = r.get("first"), r.get("median")
        warm = f"{num(r['warmup_n'])} samples" + (f" / {r['warmup_s']:.2f} s" if r.get("warmup_s") else "")
        t.rows.append([r["run_id"], r["metric"], measured(first, unit, per_tick), measured(median, unit, per_tick),
                       wording.times(first / median) if first is not None and median else "-",
                       warm if r["warmup_n"] else "none", wording.percent(r.get("head_vs_steady_pct")),
                       pval(r.get("p_value")), num(r["significant"]),
                       num(excluded.get(f"{r['run_id']}/{r['metric']}")) if excluded else "-"])
    return t


def timeline_tables(timelines: list[dict]) -> list[Table]:
    out = []
    for tl in timelines:
        unit, per_tick = tl.get("unit", "cycles"), tl.get("ns_per_tick")
        value = lambda v: measured(v, unit, per_tick)  # noqa: E731
        seg = Table(f"timeline-{tl['config_id']}-{tl['metric']}",
                    f"Timeline {tl['config_id']} / {tl['metric']}: segments (thesis Table 5.5)",
                    ["segment", "n", "median", "change vs before", "p99", "max"],
                    note="segments cut at each run's executed event times, runs pooled; times: counter ticks "
                         "(time), counts and rates in their own unit.")
        for s in tl["segments"]:
            seg.rows.append([s["label"], num(s["n"]), value(s["median"]), wording.percent(s.get("change_pct")),
                             value(s["p99"]), value(s["max"])])
        tr = Table(f"transitions-{tl['config_id']}-{tl['metric']}",
                   f"Timeline {tl['config_id']} / {tl['metric']}: transitions and change points "
                   f"({tl['detected']} of {tl['events']} events have a change point within tolerance)",
                   ["run", "event", "t (s)", "nearest change point (s)", "distance (s)", "detected",
                    "transition extreme (bin median)", "vs segment before"])
        for x in tl["transitions"]:
            tr.rows.append([x["run_id"], x["event"], wording.seconds(x["t_s"]),
                            wording.seconds(x["nearest_change_s"]) if x.get("nearest_change_s") is not None else "none",
                            f"{x['distance_s']:+.3f}" if x.get("distance_s") is not None else "-",
                            f"{num(x['detected'])} (±{x['tolerance_s']:.2f} s)", value(x.get("transition_extreme")),
                            wording.percent(x.get("transition_vs_before_pct"))])
        out += [seg, tr]
    return out


def evt_table(rows: list[dict], units: dict) -> Table:
    t = Table("evt", "pWCET by extreme-value theory",
              ["config", "metric", "status", "method", "fit size", "xi", "KS p (fit)", "A² (fit)",
               "Ljung-Box p", "runs p", "KS halves p", "pWCET 1e-3", "pWCET 1e-6", "pWCET 1e-9", "reasons"],
              note="pWCET(p): value exceeded by one sample with probability p, in counter ticks (time). Checks "
                   "at alpha = 0.01 on the series fitted (block maxima / exceedances in time order). A count, a rate "
                   "or a throughput has none (not applicable).")
    for r in rows:
        value = lambda v, r=r: measured(v, units.get(r["metric"], "cycles"), r.get("ns_per_tick"))  # noqa: E731
        best = r.get(r.get("best") or "gev") or r.get("pot") or {}
        iid, gof, pw = best.get("iid") or {}, best.get("gof") or {}, r.get("pwcet") or {}
        size = (f"{best['n_fit']} maxima of {best['block']}" if "block" in best else
                f"{best['n_fit']} over {value(best.get('threshold'))}" if best.get("n_fit") else "-")
        t.rows.append([r["config_id"], r["metric"], r["status"], best.get("method", "-"), size,
                       sig(best.get("xi")), pval(gof.get("ks_p")), sig(gof.get("ad_a2")),
                       pval(iid.get("ljung_box_p")), pval(iid.get("runs_p")), pval(iid.get("ks_halves_p"))]
                      + [value(pw.get(k)) if pw.get(k) is not None else "-" for k in ("0.001", "1e-06", "1e-09")]
                      + ["; ".join(r.get("reasons") or [])])
    return t


def verdict_cells(v: dict) -> list[str]:
    """statistic, reference -> value, change [95% CI], noise floor, MDE, p (units), verdict."""
    if v.get("value") is None:
        return [v.get("statistic_label", "-"), "-", "-", "-", "-", "-", wording.short(v, v.get("unit_word", "runs"))]
    fmt = lambda x: wording.value(x, v.get("stat_unit", "ticks"), v.get("ns_per_tick"), v.get("metric_unit", "cycles"))  # noqa: E731
    n = v.get("units") or [0, 0]
    unit_word = v.get("unit_word", "runs")
    if v["verdict"] == "baseline":
        return [v["statistic_label"], fmt(v["value"]), "-", "-", "-", f"{n[0]} {unit_word}", "baseline"]
    p = v.get("p_value")
    return [v["statistic_label"], f"{fmt(v.get('reference_value'))} → {fmt(v['value'])}", wording.change(v),
            wording.floor_text(v), wording.mde_text(v),
            (f"{p:.2g}" if p is not None else "-") + f" ({n[0]} vs {n[1]} {unit_word})",
            wording.short(v, unit_word)]


VERDICT_COLS = ["statistic", "baseline → config", "change [95% CI]", "noise floor", "min. detectable", "p (units)",
                "verdict"]


VERDICT_NOTE = ("design runs: the configuration's runs against its baseline's (a run is one unit of evidence); "
                "paired: on- against off-windows inside the same runs (an on-window with its neighbouring off-windows is one unit, a window). interference = p < alpha "
                "(exact permutation / sign-flip test; Welch's / one-sample t-test where too few units let it reach "
                "alpha), the 95% interval excludes no change, and a change above the noise floor and the negligible "
                "change; no interference = the 95% interval inside the negligible change.")
OVERHEAD_NOTE = ("each configuration's runs on a hypervisor against the same configuration's runs on native, by the "
                 "verdicts' engine; times converted with each run's own counter frequency. overhead = p < alpha, the "
                 "95% interval excludes no change, and a change above the noise floor (from the native runs) and the "
                 "negligible change; no overhead = the 95% interval inside the negligible change.")

BOARDS_NOTE = ("per-board fleet campaign: each configuration's runs on a board against the same configuration's runs "
               "on the reference board (the first of the plan), by the verdicts' engine; times converted with each "
               "run's own counter frequency. different = p < alpha and a change above the noise floor (from the "
               "reference board's runs) and the negligible change; no difference = the 95% interval inside the "
               "negligible change.")


def verdict_table(rows: list[dict], key: str = "verdicts",
                  title: str = "Isolation verdict per metric and configuration", note: str = VERDICT_NOTE) -> Table:
    t = Table(key, title, ["KPI", "metric", "config", "design"] + VERDICT_COLS + ["gates", "sentence"], note=note)
    for v in rows:
        t.rows.append([v["kpi_label"], v["metric"], v["config_id"], v["design"]] + verdict_cells(v)
                      + ["; ".join(v["gates"]) or "none", v["sentence"]])
    return t


def overhead_table(rows: list[dict]) -> Table:
    return verdict_table(rows, "overhead", "Overhead of each guest against the bare machine (native)", OVERHEAD_NOTE)


def boards_table(rows: list[dict]) -> Table:
    reference = next((v["board"] for v in rows if v["verdict"] == "baseline"), "the reference board")
    return verdict_table(rows, "boards", f"Boards: each configuration against the same one on {reference}",
                         BOARDS_NOTE)


def stability_table(rows: list[dict]) -> Table:
    t = Table("stability", "Long-term stability per configuration", ["metric", "config", "verdict", "evidence"])
    for v in rows:
        t.rows.append([v["metric"], v["config_id"], v["verdict"], v["evidence"]])
    return t


def gate_table(gates: list[dict]) -> Table:
    t = Table("gates", "KPI gates of the spec", ["metric", "stat", "config", "result", "detail"])
    for g in gates:
        t.rows.append([g["metric"], g["stat"], g["config_id"], "pass" if g["passed"] else "FAIL", g["detail"]])
    return t


def runs_table(runs: list[dict]) -> Table:
    """Every run; the board each ran on in a fleet campaign; the CPUs that ran other work
    during the run (host noise, where the run measured it)."""
    boards = any(r.get("board") for r in runs)
    t = Table("runs", "Runs", ["run", *(["board"] if boards else []), "config", "status", "samples", "lost",
                               "counter (MHz)", "host noise", "reason"])
    for r in runs:
        lost = (r.get("lost_samples") or 0) + (r.get("ring_lost_samples") or 0)
        noisy = r.get("noisy_cpus")
        noise = "not measured" if noisy is None else ", ".join(f"cpu{c} {wording.share(pct)}" for c, pct in noisy.items())
        t.rows.append([r["run_id"] + (" (warm-up)" if r.get("warmup") else ""),
                       *([r.get("board") or "-"] if boards else []), r.get("config_id") or "-",
                       r.get("status") or "?", num(r.get("sample_count")), num(lost),
                       f"{r['freq_hz'] / 1e6:.2f}" if r.get("freq_hz") else "-", noise or "-", r.get("reason") or ""])
    return t


def left_out_table(rows: list[dict]) -> Table:
    t = Table("left_out", "Runs left out of the statistics", ["run", "config", "status", "file", "reason"],
              note="runs whose files cannot be read; earlier attempts of a run are never used.")
    for d in rows:
        t.rows.append([d["run"] + ("" if d["final"] else " (earlier attempt)"), d.get("config_id") or "-",
                       d["status"], d["file"], d["reason"]])
    return t


def host_table(host: dict) -> Table:
    iso = host.get("isolation") or {}
    kvm = host.get("kvm") or {}
    caches = ", ".join(f"L{c['level']} {c['type'].lower()} {c['size_bytes'] // 1024} KiB"
                       for c in host.get("caches") or [])
    rows = [("host", host.get("hostname")), ("CPU", host.get("cpu_model")), ("architecture", host.get("machine")),
            ("CPUs online / allowed", f"{host.get('online_cpus')} / {host.get('allowed_cpus')}"),
            ("caches (cpu0)", caches or None), ("kernel", host.get("kernel")),
            ("isolcpus", iso.get("isolcpus") or "none"), ("nohz_full", iso.get("nohz_full") or "none"),
            ("governor", str(host.get("governors")) if host.get("governors") else None),
            ("KVM", f"{kvm.get('kind')} (available: {kvm.get('available')})" if kvm else None)]
    rows += [row for kind, cls in BACKENDS.by_name().items() for row in cls.version_rows(host.get(kind) or {})]
    rows += [("Python", host.get("python"))]
    return Table("host", "Host", ["fact", "value"], [[k, str(v)] for k, v in rows if v not in (None, "")])

