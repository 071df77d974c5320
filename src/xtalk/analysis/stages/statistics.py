"""Stages of the result's statistics: per run and per configuration (describe.py), the
design's parameters, deadline misses and outliers (outliers.py), ramp-ups (changepoints.py)."""
from __future__ import annotations

from ..power import POWER
from .. import outliers
from ..result import Rows
from . import Pass, stage


@stage("stats_runs", 10, Rows)
def stats_runs(p: Pass) -> Rows:
    return p.per_run


@stage("stats", 20, Rows)
def stats(p: Pass) -> Rows:
    return p.per_config


@stage("analysis", 30, dict)
def design(p: Pass) -> dict:
    """alpha, power, the negligible change, the paired design."""
    return {"alpha": p.rules.alpha, "power": POWER, "negligible_pct": p.rules.negligible_pct,
            "negligible_points": p.rules.negligible_points, "paired": p.paired or None}


@stage("deadlines", 40, Rows)
def deadlines(p: Pass) -> Rows:
    return outliers.deadline_rows(p.pooled, p.stats, p.deadlines)


@stage("outliers", 50, Rows, needs="extras", empty=[])
def outlier_rows(p: Pass) -> Rows:
    return outliers.outlier_rows(p.pooled, p.stats)


@stage("rampup", 60, Rows)
def rampup(p: Pass) -> Rows:
    return p.ramp


@stage("rampup_excluded", 70, dict[str, int])
def rampup_excluded(p: Pass) -> dict[str, int]:
    """"run/metric" -> samples skipped."""
    return {f"{r}/{m}": n for (r, m), n in p.skipped.items()}
