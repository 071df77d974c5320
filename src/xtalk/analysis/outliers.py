"""Outliers against the spec's deadlines and the largest samples, as in the thesis's
Table 5.1 (median, outlier in cycles and ns) plus when in the run each one happened.

Counts above a deadline are exact (counted on every sample during the scan; 'above'
means strictly greater). A deadline in ns is converted with each run's own counter
frequency. Nothing is trimmed: the largest samples are listed as they are.
"""
from __future__ import annotations

import numpy as np

from .accum import Stream


def deadline_rows(pooled: dict[tuple[str, str], Stream], stats: dict[tuple[str, str], dict],
                  deadlines: list[dict]) -> list[dict]:
    rows = []
    for i, d in enumerate(deadlines):
        unit = "ns" if d.get("ns") is not None else "cycles"
        limit = d.get("ns") if unit == "ns" else d.get("cycles")
        for (cid, metric), s in pooled.items():
            if metric != d.get("metric"):
                continue
            row = stats[(cid, metric)]
            count = int(s.above[i]) if i < len(s.above) else None
            rows.append({
                "metric": metric, "config_id": cid, "deadline": limit, "unit": unit,
                "n": s.n, "above": count, "rate": count / s.n if count is not None and s.n else None,
                "median": row.get("median"), "wcet": row.get("wcet"), "wcet_ns": row.get("wcet_ns"),
                "margin_pct": _margin(row, limit, unit),
                "unconvertible": unit == "ns" and not s.ns_per_tick,
            })
    return rows


def _margin(row: dict, limit: float, unit: str) -> float | None:
    """How far the observed worst case is below (negative) or above the deadline, in %."""
    worst = row.get("wcet_ns") if unit == "ns" else row.get("wcet")
    return (worst - limit) / limit * 100.0 if worst is not None and limit else None


def largest(stream: Stream, row: dict, k: int = 5) -> list[dict]:
    """The k largest samples of a pooled stream with run, position and time in the run."""
    tv, ti, tt = stream.top
    order = np.argsort(tv)[::-1][:k]
    out = []
    for j in order:
        run = stream.runs[int(stream.top_run[j])] if stream.top_run is not None else stream.run_id
        value = float(tv[j])
        out.append({
            "run_id": run, "index": int(ti[j]), "t_s": None if np.isnan(tt[j]) else float(tt[j]),
            "value": value, "value_ns": value * stream.ns_per_tick if stream.ns_per_tick else None,
            "ns_per_tick": stream.ns_per_tick,
            "x_median": value / row["median"] if row.get("median") else None,
        })
    return out


def outlier_rows(pooled: dict[tuple[str, str], Stream], stats: dict[tuple[str, str], dict], k: int = 5) -> list[dict]:
    rows = []
    for (cid, metric), s in pooled.items():
        row = stats[(cid, metric)]
        for rank, item in enumerate(largest(s, row, k), 1):
            rows.append({"metric": metric, "config_id": cid, "rank": rank, "median": row.get("median"), **item})
    return rows
