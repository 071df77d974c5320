"""Isolation verdicts per KPI in the thesis's taxonomy (section 5.6.1): temporal
performance at kernel level, application level, memory-intensive, I/O, long-term
stability. A metric's class comes from its name (the bench that produced it).

Per (metric, configuration): FAIL when one of the spec's gates on it fails, PASS when
all pass; without a gate the verdict is evidence only: 'interference' (significant,
non-negligible change vs the baseline, see compare.py) or 'no significant change'.
Long-term stability per configuration (assessed for runs of at least LONG_RUN_S or
with a timeline): 'stable' when every run's last-fifth median is
within DRIFT_PCT of its first fifth and, with a timeline, the median after the last
event is within DRIFT_PCT of the one before the first; else 'drift'. These thresholds
are xtalk's defaults, not the thesis's; gates are what decide pass/fail.
"""
from __future__ import annotations

KPI_CLASSES = (
    ("temporal performance (kernel level)", ("hidden_latency", "timer", "irq", "interrupt", "latency", "ctx",
                                             "yield", "event", "sched", "wakeup", "tick")),
    ("memory-intensive", ("pointer_chase", "membw", "cache", "stream", "memcpy", "mem")),
    ("I/O", ("io_", "disk", "blk", "net", "virtio", "dma", "uart")),
    ("application level", ("qsort", "basicmath", "bitcount", "susan", "dhrystone", "coremark", "cpu_spin")),
)
LONG_TERM = "long-term stability"
DRIFT_PCT = 5.0
LONG_RUN_S = 60.0


def kpi_class(metric: str) -> str:
    name = metric.lower()
    for label, keys in KPI_CLASSES:
        if any(k in name for k in keys):
            return label
    return "application level"


def _timeline_evidence(tl: dict | None) -> tuple[str | None, str]:
    """Verdict and evidence from a timeline: a segment significantly unlike 'before'."""
    if not tl:
        return None, ""
    segs = [s for s in tl["segments"][1:] if s.get("statement")]
    hit = [s for s in segs if s.get("p_value") is not None and s["p_value"] < 0.01
           and s.get("magnitude") not in (None, "negligible")]
    return ("interference (timeline)" if hit else "no significant change (timeline)",
            " ".join(s["statement"] for s in segs))


def metric_verdicts(stats: list[dict], comparisons: dict, gates: list[dict], baselines: dict,
                    timelines: dict | None = None) -> list[dict]:
    """`timelines`: {(config_id, metric): timeline} used where there is no baseline."""
    out = []
    for row in stats:
        cid, metric = row["config_id"], row["metric"]
        mine = [g for g in gates if g["config_id"] == cid and g["metric"] == metric]
        cmp = comparisons.get((cid, metric))
        tl_verdict, tl_evidence = _timeline_evidence((timelines or {}).get((cid, metric)))
        if mine:
            verdict = "PASS" if all(g["passed"] for g in mine) else "FAIL"
        elif tl_verdict and (cmp is None or baselines.get(cid) in (None, cid)):
            verdict = tl_verdict
        elif baselines.get(cid) in (None, cid):
            verdict = "baseline" if baselines.get(cid) == cid else "no baseline"
        elif cmp is None:
            verdict = "no data"
        else:
            verdict = "interference" if cmp["significant"] else "no significant change"
        out.append({"kpi": kpi_class(metric), "metric": metric, "config_id": cid, "verdict": verdict,
                    "gates": [f"{g['stat']} {'pass' if g['passed'] else 'FAIL'}: {g['detail']}" for g in mine],
                    "evidence": " ".join(x for x in (cmp["statement"] if cmp else "", tl_evidence) if x)})
    order = {label: i for i, (label, _) in enumerate(KPI_CLASSES)}
    return sorted(out, key=lambda v: order.get(v["kpi"], 99))


def long_term_verdicts(drifts: dict[str, list[dict]], timelines: dict[str, dict], assessed: bool = True,
                       metrics: dict[str, list[str]] | None = None) -> list[dict]:
    """One row per configuration (`metrics`: config -> its metrics); `assessed` false (runs
    shorter than LONG_RUN_S and no timeline): the rows say so."""
    out = []
    for cid, names in (metrics or {c: sorted({r["metric"] for r in rows}) for c, rows in drifts.items()}).items():
        rows = drifts.get(cid, [])
        if not assessed:
            out.append({"kpi": LONG_TERM, "metric": ", ".join(names), "config_id": cid, "verdict": "not assessed",
                        "gates": [], "evidence": f"runs shorter than {LONG_RUN_S:g} s and no timeline"})
            continue
        worst = max((abs(r["drift_pct"]) for r in rows if r and r.get("drift_pct") is not None), default=None)
        tl = timelines.get(cid)
        recovered = None
        if tl and len(tl["segments"]) > 1 and tl["segments"][-1]["change_pct"] is not None:
            recovered = tl["segments"][-1]["change_pct"]
        bad = (worst is not None and worst > DRIFT_PCT) or (recovered is not None and abs(recovered) > DRIFT_PCT)
        evidence = []
        if worst is not None:
            evidence.append(f"largest drift first-to-last fifth of a run {worst:.2f}%")
        if recovered is not None:
            evidence.append(f"after the timeline vs before: {recovered:+.2f}%")
        out.append({"kpi": LONG_TERM, "metric": ", ".join(names), "config_id": cid, "verdict": "no data" if worst is None and recovered is None
                    else "drift" if bad else "stable", "gates": [],
                    "evidence": "; ".join(evidence) + f" (threshold {DRIFT_PCT:g}%)"})
    return out


def overall(gates: list[dict], defined: int = 0) -> str:
    """FAIL / PASS from the gate results; NO GATES without gates in the spec; NOT EVALUATED
    when the spec has gates but no configuration they apply to (only the baseline ran)."""
    if not gates:
        return "NOT EVALUATED" if defined else "NO GATES"
    return "FAIL" if any(not g["passed"] for g in gates) else "PASS"
