"""The "Interference channels" rows of a campaign that a study of xtalk's made (the
channel study, a search's confirmation: campaign.json `study`): for each configuration
that runs a stressor standing for a channel, the slowdown multiplier (the measurer's
statistic under stress over alone, with its 95 % interval over runs, from the verdict),
the verdict, p99 and maximum, the achieved pressure of the stressor, its sizes in bytes
with what resolved them (measured or reported caches), and the runs behind the numbers;
for each channel not exercised, the reason.

Caveat: a share (stolen time, deadline misses) has no multiplier where alone it is ~0:
its change is given in percentage points instead (`points`).
"""
from __future__ import annotations

from typing import Any

from .wording import in_ticks

Row = dict[str, Any]


def _ns(entry: dict | None, key: str, ns_per_tick: float | None) -> float | None:
    """A time statistic in ns; None without a counter frequency or for a count or rate
    (`ns_per_tick` None: it has no time)."""
    value = (entry or {}).get(key)
    return value * ns_per_tick if value is not None and ns_per_tick and entry.get("stat_unit") == "ticks" else None


def _effect(v: dict) -> dict:
    """Multiplier [95 % interval] on the log scale, percentage points on the difference scale."""
    change, ci = v.get("change_pct"), v.get("ci95_pct")
    if v.get("scale") == "log" and change is not None:
        return {"multiplier": 1 + change / 100, "multiplier_ci": [1 + c / 100 for c in ci] if ci else None}
    points = v.get("change")
    ci_abs = v.get("ci95")
    share = v.get("stat_unit") in ("share", "fraction")
    scale = 100 if share else 1
    return {"multiplier": None, "multiplier_ci": None,
            "change": points * scale if points is not None else None,
            "change_ci": [c * scale for c in ci_abs] if ci_abs else None,
            "change_unit": "points" if share else v.get("stat_unit")}


def _pressure(runs: list[dict], stressor: str, alone: dict | None) -> dict | None:
    """The stressor's achieved pressure, mean over the runs that report it, and its share
    of what the stressor reached alone (interference/reach.py) where that was measured."""
    got = [p for r in runs for name, p in ((r.get("pressure") or {}).items()) if name == stressor or
           name.startswith(f"{stressor}-")]
    rates = [p["rate"] for p in got if isinstance(p, dict) and p.get("rate") is not None]
    if not rates:
        reasons = sorted({p.get("not_reported") for p in got if isinstance(p, dict) and p.get("not_reported")})
        return {"rate": None, "unit": None, "reason": "; ".join(reasons) or None}
    rate, unit = sum(rates) / len(rates), got[0].get("unit")
    reached = (alone or {}).get("rate") if (alone or {}).get("unit") == unit else None
    return {"rate": rate, "unit": unit, "runs": len(rates), "alone": reached,
            "of_alone": rate / reached if reached else None}


def _sizes(runs: list[dict], stressor: str) -> dict[str, dict]:
    """The stressor's size parameters as its first run resolved them: text, bytes and the
    source of the caches a cache-relative one resolved against (spec/sizes.py)."""
    prefix = f"stressors.{stressor}.params."
    given = (runs[0].get("sizes") or {}) if runs else {}
    return {path.removeprefix(prefix): size for path, size in given.items() if path.startswith(prefix)}


def channel_rows(study: dict | None, verdicts: list[dict], runs: list[dict]) -> list[Row]:
    if not study:
        return []
    plan = {e["name"]: e for e in study.get("plan") or []}
    passed: dict[str, list[dict]] = {}
    for r in runs:
        if r.get("status") == "pass" and not r.get("warmup"):
            passed.setdefault(r.get("config_id"), []).append(r)
    rows = []
    for v in verdicts:
        entry = plan.get((v.get("config") or {}).get("stressor"))
        if entry is None:
            continue
        shown = {s["statistic"]: s for s in v.get("secondary") or []} | {v.get("statistic"): v}  # the primary too
        ns = v.get("ns_per_tick") if in_ticks(v.get("metric_unit", "cycles")) else None
        mine = passed.get(v["config_id"], [])
        rows.append({
            "channel": entry["channel"], "title": entry["title"], "role": entry.get("role", "default"),
            "tested": True, "reason": None, "better": v.get("better"),
            "stressor": entry.get("stressor"), "config_id": v["config_id"], "config": v.get("config"),
            "placement": (v.get("config") or {}).get("placement"), "metric": v["metric"],
            "statistic": v.get("statistic_label") or v.get("statistic"), **_effect(v),
            "verdict": v.get("verdict"), "p_value": v.get("p_value"),
            "p99_ns": _ns(shown.get("p99"), "value", ns), "max_ns": _ns(shown.get("max"), "value", ns),
            "p99_alone_ns": _ns(shown.get("p99"), "reference_value", ns),
            "max_alone_ns": _ns(shown.get("max"), "reference_value", ns),
            "pressure": _pressure(mine, entry["name"], entry.get("reach")),
            "sizes": _sizes(mine, entry["name"]), "sized": entry.get("sized"),
            "runs": [r["run_id"] for r in mine],
            "baseline": v.get("baseline"), "baseline_runs": [r["run_id"] for r in passed.get(v.get("baseline"), [])],
        })
    rows += [{"channel": e["channel"], "title": e["title"], "role": e.get("role", "default"), "tested": False,
              "reason": e["reason"],
              "stressor": e.get("stressor")} for e in plan.values() if not e["tested"]]
    return rows
