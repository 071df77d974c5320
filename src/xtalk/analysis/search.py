"""What a search's confirmation campaign says (campaign.json `study` of kind "search",
search/confirm.py): the worst neighbour found against the best of the channels' default
stressors, as a ratio with its 95 % interval over runs (the measurer's primary statistic
next to the found neighbour over next to that default: the ratio of their slowdown
multipliers), and the conclusion. When no configuration, found or default, is judged
`interference`, the conclusion is "no channel above the noise floor": the search found
nothing a fresh A/B would stand by, whatever its trials' values were.
"""
from __future__ import annotations

from .effects import assess_runs

NONE_ABOVE = "no channel above the noise floor"
COMPARED = ("different", "no-difference", "inconclusive")  # found against default: neither is "interference"


def _harm(row: dict) -> float:
    """How much worse than alone (larger: worse), on the row's own scale."""
    sign = 1 if row.get("better") != "higher" else -1
    if row.get("multiplier"):
        return row["multiplier"] ** sign
    return sign * (row.get("change") or 0.0)


def ratio(ctx, found: dict, default: dict) -> dict:
    """The found neighbour over the default: ×ratio [95 %] for ratio statistics (higher-is-
    better ones inverted, so > 1 is always worse), a difference in points for shares."""
    info = ctx.infos[found["metric"]]
    stat = info.kind.primary
    row = assess_runs(stat, ctx.primary_values(found["config_id"], found["metric"]),
                      ctx.primary_values(default["config_id"], found["metric"]), ctx.rules, ctx.rng, COMPARED)
    higher = info.kind.better == "higher"
    out = {"verdict": row.get("verdict"), "p_value": row.get("p_value"), "units": row.get("units")}
    if row.get("scale") == "log" and row.get("change_pct") is not None:
        value = 1 + row["change_pct"] / 100
        lo, hi = (1 + c / 100 for c in row["ci95_pct"]) if row.get("ci95_pct") else (None, None)
        if higher:
            value, lo, hi = 1 / value, (1 / hi if hi else None), (1 / lo if lo else None)
        return {**out, "ratio": value, "ratio_ci": [lo, hi] if lo is not None else None, "unit": "×"}
    scale = 100 if stat.unit in ("share", "fraction") else 1
    sign = -1 if higher else 1
    diff = row.get("change")
    ci = [sign * c * scale for c in row["ci95"]] if row.get("ci95") else None
    return {**out, "difference": sign * diff * scale if diff is not None else None,
            "difference_ci": sorted(ci) if ci else None,
            "unit": "points" if scale == 100 else stat.unit}


def search_outcome(study: dict | None, rows: list[dict], ctx) -> dict | None:
    if not study or study.get("kind") != "search":
        return None
    tested = [r for r in rows if r["tested"]]
    found = next((r for r in tested if r["role"] == "found"), None)
    defaults = [r for r in tested if r["role"] == "default"]
    above = [r for r in tested if r["verdict"] == "interference"]
    out = {"found": found and {k: found.get(k) for k in ("channel", "config_id", "stressor", "multiplier",
                                                         "multiplier_ci", "change", "change_ci", "change_unit",
                                                         "verdict")},
           "best_default": None, "against_best_default": None, "above_noise": [r["channel"] for r in above]}
    if found is not None and defaults and ctx.primary_values(found["config_id"], found["metric"]):
        best = max(defaults, key=_harm)
        out["best_default"] = {k: best.get(k) for k in ("channel", "config_id", "stressor", "multiplier",
                                                        "multiplier_ci", "change", "change_ci", "change_unit",
                                                        "verdict")}
        out["against_best_default"] = ratio(ctx, found, best)
    if not above:
        out["conclusion"] = (f"{NONE_ABOVE}: neither the worst neighbour the search found nor any channel's default "
                             "stressor changed the measurer beyond the noise floor")
    elif found is None:
        out["conclusion"] = "the found neighbour has no measurement in the confirmation campaign"
    else:
        out["conclusion"] = (f"above the noise floor: {', '.join(out['above_noise'])}; "
                             + _against(out["against_best_default"], out["best_default"], out["found"]))
    return out


def _default_of(found: dict) -> str | None:
    channel = found.get("channel")
    return channel if channel and channel != "worst found" else None


def found_name(found: dict) -> str:
    """"the found neighbour", and whose default it is where it is one (confirm.py: one row)."""
    return "the found neighbour" + (f" ({_default_of(found)}'s default)" if _default_of(found) else "")


def best_name(found: dict, best: dict) -> str:
    """The best default compared with the found neighbour: "another" where that is a default too."""
    return f"the best {'other ' if _default_of(found) else ''}channel default ({best['channel']})"


def _against(vs: dict | None, best: dict | None, found: dict) -> str:
    if not vs:
        return f"no other channel default to compare {found_name(found)} with"
    worse = (vs.get("ratio") or 1) > 1 or (vs.get("difference") or 0) > 0
    if vs["verdict"] == "different":
        return (f"{found_name(found)} is {'worse' if worse else 'milder'} than {best_name(found, best)}"
                + ("" if worse else ": the search space did not reach it; widen it"))
    return f"{found_name(found)} and {best_name(found, best)} are not told apart ({vs['verdict']})"
