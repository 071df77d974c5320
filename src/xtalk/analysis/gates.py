"""KPI gates: compare a statistic per configuration with a limit, absolute or relative to
the baseline configuration (same values on every other dimension). A gate whose
metric or baseline has no data fails too: a missing measurement never passes.
The statistics are the analysis's per-configuration rows (describe.py): the report,
`xtalk run`'s exit code and `xtalk show` judge gates on the same numbers.
"""
from __future__ import annotations

from ..spec.model import Gate
from .wording import duration, num, percent


def change_pct(value: float | None, baseline: float | None) -> float | None:
    if value is None or not baseline:
        return None
    return (value - baseline) / baseline * 100.0


def baseline_dim(spec: dict) -> tuple[str, str]:
    """(dimension, value) of a spec's reference configuration: [analysis] baseline, else
    the first gate's baseline, else placement=solo."""
    explicit = (spec.get("analysis") or {}).get("baseline")
    if explicit:
        dim, _, value = str(explicit).partition("=")
        return dim, value
    for g in spec.get("gates") or []:
        dim, _, value = str(g.get("baseline", "placement=solo")).partition("=")
        return dim, value
    return "placement", "solo"


def baseline_of(config: dict, all_configs: dict[str, dict], dim: str, value: str,
                 free: tuple[str, ...] = ("start_order",)) -> str | None:
    """The configuration with dim=value and the same values on every other dimension it
    has but the `free` ones (start order: a solo baseline has none); solo has no
    `stressors.` dimensions (xtalk.spec.plan), so it is the baseline of every size and instance
    count of a sweep."""
    for cid, other in all_configs.items():
        if str(other.get(dim)) != value:
            continue
        if all(str(other[k]) == str(v) for k, v in config.items() if k != dim and k not in free and k in other):
            return cid
    return None


def evaluate(gates: list[Gate], rows: list[dict], all_configs: dict[str, dict]) -> list[dict]:
    """`rows`: per-configuration statistics (describe.stats_rows); `all_configs`:
    config_id -> its dimension values, for every configuration of the campaign."""
    stats = {(r["config_id"], r["metric"]): r for r in rows if r.get("n")}
    results = []
    for gate in gates:
        dim, _, value = gate.baseline.partition("=")
        for cid, config in all_configs.items():
            if str(config.get(dim)) == value:
                continue
            row = stats.get((cid, gate.metric))
            res = {"gate": gate.model_dump(exclude_none=True), "config_id": cid, "metric": gate.metric,
                   "stat": gate.stat, "passed": False, "detail": ""}
            results.append(res)
            if row is None:
                res["detail"] = f"no samples of metric {gate.metric!r} in {cid}"
                continue
            observed = row[gate.stat]
            res["observed"] = observed
            checks = []
            if gate.max_cycles is not None:
                checks.append((observed <= gate.max_cycles, f"{num(observed)} cycles vs limit {num(gate.max_cycles)}"))
            if gate.max_ns is not None:
                ns = observed * row["ns_per_tick"] if row["ns_per_tick"] else None
                checks.append((ns is not None and ns <= gate.max_ns,
                               f"{duration(ns)} vs limit {duration(gate.max_ns)}" if ns else "no counter frequency"))
            if gate.max_increase_pct is not None:
                base_id = baseline_of(config, all_configs, dim, value)
                base = stats.get((base_id, gate.metric)) if base_id else None
                pct = change_pct(observed, base[gate.stat]) if base else None
                res["baseline_config"], res["change_pct"] = base_id, pct
                checks.append((pct is not None and pct <= gate.max_increase_pct,
                               f"{percent(pct)} vs {base_id} (limit {percent(gate.max_increase_pct)})" if pct is not None
                               else f"no baseline data for {gate.baseline}"))
            res["passed"] = all(ok for ok, _ in checks)
            res["detail"] = "; ".join(text for _, text in checks)
    return results
