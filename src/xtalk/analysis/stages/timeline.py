"""Stages of what happens along a run: before/during/after statistics of each timeline
(changepoints.timeline), drift inside runs (changepoints.drift), and the long-term verdicts
of both (verdict.long_term_verdicts)."""
from __future__ import annotations

from .. import changepoints, verdict
from ..result import Rows
from . import Pass, stage


@stage("timelines", 80, Rows, needs="extras", empty=[])
def timelines(p: Pass) -> Rows:
    """Per configuration and metric of a spec with a timeline (not a paired design)."""
    if p.paired:
        return []
    out = []
    for (cid, metric), group in p.by_config.items():
        tl = changepoints.timeline(group, p.events, p.units.get(metric, "cycles"))
        if tl:
            out.append(dict(config_id=cid, metric=metric, **tl))
    return out


@stage("drift", 90, dict[str, Rows], needs="extras", empty={})
def drift(p: Pass) -> dict[str, Rows]:
    """config id -> the drift of each of its runs' streams that drifted."""
    out: dict[str, Rows] = {}
    for (cid, metric), group in p.by_config.items():
        for s in group:
            d = changepoints.drift(s)
            if d:
                out.setdefault(cid, []).append(dict(metric=metric, **d))
    return out


@stage("stability", 170, Rows, needs="extras", empty=[])
def stability(p: Pass) -> Rows:
    long_runs = any(float(r.get("duration_s") or 0) >= verdict.LONG_RUN_S for r in p.used) or bool(p.result["timelines"])
    metrics_by_config: dict[str, list[str]] = {}
    for r in p.per_config:
        metrics_by_config.setdefault(r["config_id"], []).append(r["metric"])
    return verdict.long_term_verdicts(p.result["drift"], {t["config_id"]: t for t in p.result["timelines"]}, long_runs,
                                      metrics_by_config)
