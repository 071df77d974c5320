"""Two campaigns side by side (e.g. the same spec on Xen and on QEMU/KVM, or the same
campaign run twice): per matching (configuration, metric), B's runs against A's runs
with the same engine as a configuration against its baseline (effects.py: the run is the
unit, A's runs give the noise floor), verdict `different`, `no-difference` or
`inconclusive`, next to each campaign's own verdict against its baseline.

Configurations are matched by their dimension values (placement, start order, matrix
paths), compared as text on the dimensions both campaigns have; a configuration that
matches nothing, or more than one, is listed as only in A / only in B.
"""
from __future__ import annotations

import numpy as np

from .effects import Rules, assess_runs, describe_change
from .host_load import load_difference
from .kinds import metric_info
from .verdict import Context
from .wording import sentence

LABELS = ("different", "no-difference", "inconclusive")


def label(result: dict, other: dict) -> str:
    a, b = result["campaign"], other["campaign"]
    return a.get("name") if a.get("name") != b.get("name") else a.get("id")


def _keys(configs: dict[str, dict], dims: set[str]) -> dict[tuple, str]:
    """Match key (the shared dimension values as text) -> config_id; ambiguous keys dropped."""
    out: dict[tuple, str | None] = {}
    for cid, cfg in configs.items():
        key = tuple(sorted((k, str(v)) for k, v in cfg.items() if k in dims))
        out[key] = None if key in out else cid
    return {k: v for k, v in out.items() if v is not None}


def match(configs_a: dict[str, dict], configs_b: dict[str, dict]) -> list[tuple[str, str, dict]]:
    """(config of A, config of B, shared dimension values) for each match."""
    dims = set().union(*configs_a.values()) & set().union(*configs_b.values()) if configs_a and configs_b else set()
    ka, kb = _keys(configs_a, dims), _keys(configs_b, dims)
    return [(ka[k], kb[k], dict(k)) for k in ka if k in kb]


def _context(analysis) -> Context:
    res = analysis.result
    runs_of: dict[str, list[dict]] = {}
    for r in analysis.used_runs:
        runs_of.setdefault(r.get("config_id", "?"), []).append(r)
    return Context(analysis.runs_streams, runs_of, analysis.events, analysis.infos,
                   list((res.get("spec") or {}).get("deadlines") or []), Rules.of(res.get("spec") or {}), None,
                   np.random.default_rng(0))


def compare_campaigns(a, b, seed: int = 0) -> dict:
    """a, b: pipeline.Analysis of the two campaigns."""
    ra, rb = a.result, b.result
    la, lb = label(ra, rb), label(rb, ra)
    ctx_a, ctx_b = _context(a), _context(b)
    ctx_a.rng = ctx_b.rng = np.random.default_rng(seed)
    rules = ctx_a.rules  # A is the reference: its settings decide
    own_a = {(v["config_id"], v["metric"]): v for v in ra["verdicts"]}
    own_b = {(v["config_id"], v["metric"]): v for v in rb["verdicts"]}
    rows, matched_a, matched_b = [], set(), set()
    for cid_a, cid_b, dims in match(ra["configs"], rb["configs"]):
        for (cid, metric), stream in a.pooled.items():
            if cid != cid_a or (cid_b, metric) not in b.pooled:
                continue
            matched_a.add((cid_a, metric))
            matched_b.add((cid_b, metric))
            info = ctx_b.infos.get(metric) or metric_info(metric, None)
            mine, ref = ctx_b.run_units(cid_b, info), ctx_a.run_units(cid_a, info)
            kind = info.kind
            row = assess_runs(kind.primary, [u[kind.primary.key] for _, u in mine],
                              [u[kind.primary.key] for _, u in ref], rules, ctx_b.rng, LABELS)
            extra = [describe_change(s, [u[s.key] for _, u in mine], [u[s.key] for _, u in ref])
                     for s in kind.secondary]
            _mind_host_load(row, ctx_a.runs_of.get(cid_a, []), ctx_b.runs_of.get(cid_b, []), la, lb)
            row.update(config_id=cid_b, config_id_a=cid_a, config=dims, metric=metric, kind=kind.name,
                       better=kind.better, secondary=extra, metric_unit=info.unit, ns_per_tick=stream.ns_per_tick,
                       a_vs_baseline=_own(own_a.get((cid_a, metric))), b_vs_baseline=_own(own_b.get((cid_b, metric))))
            row["sentence"] = sentence(f"{lb} vs {la} ({cid_b})", metric, row, extra, kind.better,
                                       stream.ns_per_tick, info.unit, "runs")
            rows.append(row)
    only_a = sorted(f"{c}/{m}" for c, m in set(a.pooled) - matched_a)
    only_b = sorted(f"{c}/{m}" for c, m in set(b.pooled) - matched_b)
    return {"a": {"label": la, **ra["campaign"], "overall": ra["overall"], "host": _host(ra),
                  "backend": _backend(ra)},
            "b": {"label": lb, **rb["campaign"], "overall": rb["overall"], "host": _host(rb),
                  "backend": _backend(rb)},
            "alpha": rules.alpha, "rows": rows, "only_a": only_a, "only_b": only_b,
            "warnings": {"a": ra["warnings"], "b": rb["warnings"]},
            "noise_flags": {"a": ra["noise_flags"], "b": rb["noise_flags"]}}


def _mind_host_load(row: dict, runs_a: list[dict], runs_b: list[dict], la: str, lb: str) -> None:
    """Record both sides' host load on the measured CPU; a "different" between campaigns
    whose hosts were loaded this differently is not told as the system's (host_load.py)."""
    load = load_difference(runs_a, runs_b)
    row["host_load"] = load
    if load and load["confounded"] and row["verdict"] == LABELS[0]:
        row["verdict"] = LABELS[2]
        row["reason"] = (f"the runs differ, but so did the host's own load on the measured CPU (median "
                         f"{load['a_pct']:g} % of each run in {la}, {load['b_pct']:g} % in {lb}): the difference "
                         f"may be the host's; run both on an equally quiet host")
        row["need_units"] = None


def _own(v: dict | None) -> dict | None:
    if not v:
        return None
    return {k: v.get(k) for k in ("baseline", "design", "verdict", "statistic", "change_pct", "ci95_pct",
                                  "noise_floor_pct", "sentence")}


def _host(res: dict) -> dict:
    h = res.get("host") or {}
    return {k: h.get(k) for k in ("hostname", "cpu_model", "kernel")}


def _backend(res: dict) -> str:
    return str(((res.get("spec") or {}).get("backend") or {}).get("kind", "native"))
