"""Two campaigns side by side (e.g. the same spec on Xen and on QEMU/KVM): per matching
(configuration, metric) the statistics of both, B's change versus A with bootstrap CIs,
Mann-Whitney U and Cliff's delta (compare.py), and each campaign's own change versus its
baseline, which is what tells which platform isolates better.
Configurations are matched by config_id; the ones present in only one campaign are listed.
"""
from __future__ import annotations

import numpy as np

from .compare import compare


def label(result: dict, other: dict) -> str:
    a, b = result["campaign"], other["campaign"]
    return a.get("name") if a.get("name") != b.get("name") else a.get("id")


def compare_campaigns(a, b, seed: int = 0) -> dict:
    """a, b: pipeline.Analysis of the two campaigns."""
    ra, rb = a.result, b.result
    la, lb = label(ra, rb), label(rb, ra)
    sa = {(r["config_id"], r["metric"]): r for r in ra["stats"] if r.get("n")}
    sb = {(r["config_id"], r["metric"]): r for r in rb["stats"] if r.get("n")}
    ca = {(c["config_id"], c["metric"]): c for c in ra["comparisons"]}
    cb = {(c["config_id"], c["metric"]): c for c in rb["comparisons"]}
    rng = np.random.default_rng(seed)
    rows = []
    for key in [k for k in sa if k in sb]:
        unit = rb["units"].get(key[1], "cycles")
        cmp = compare(b.pooled[key], a.pooled[key], sb[key], sa[key], unit, f"{lb} vs {la} ({key[0]})", rng)
        rows.append({
            "config_id": key[0], "metric": key[1], "a": _brief(sa[key]), "b": _brief(sb[key]),
            "b_vs_a": cmp,
            "a_vs_baseline": _own(ca.get(key)), "b_vs_baseline": _own(cb.get(key)),
        })
    return {"a": {"label": la, **ra["campaign"], "overall": ra["overall"], "host": _host(ra)},
            "b": {"label": lb, **rb["campaign"], "overall": rb["overall"], "host": _host(rb)},
            "rows": rows, "only_a": sorted(f"{c}/{m}" for c, m in set(sa) - set(sb)),
            "only_b": sorted(f"{c}/{m}" for c, m in set(sb) - set(sa)),
            "warnings": {"a": ra["warnings"], "b": rb["warnings"]},
            "noise_flags": {"a": ra["noise_flags"], "b": rb["noise_flags"]}}


def _brief(row: dict) -> dict:
    return {k: row.get(k) for k in ("n", "median", "p99", "wcet", "mean", "sd", "median_ns", "p99_ns", "wcet_ns")}


def _own(c: dict | None) -> dict | None:
    if not c:
        return None
    return {"baseline": c["baseline"], "median_pct": c["change_pct"]["median"], "p99_pct": c["change_pct"]["p99"],
            "wcet_pct": c["change_pct"]["wcet"], "ci_median": (c.get("ci95_pct") or {}).get("median"),
            "statement": c["statement"]}


def _host(res: dict) -> dict:
    h = res.get("host") or {}
    return {k: h.get(k) for k in ("hostname", "cpu_model", "kernel")}
