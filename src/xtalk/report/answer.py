"""The report's first screen: the answer, then what makes it doubtful.

`answer_rows`: per metric and configuration, the baseline's and the configuration's value
of the statistic that judges the metric, the change in that unit and in % with its 95%
interval, the noise floor, and the verdict with its magnitude in words ("+84 % (large):
interference", "+0.4 % [-1.6, +2.4]: no interference", "inconclusive: 3 runs, need 8");
then, where the backend is a dimension, each guest configuration's overhead against the
same configuration on the bare machine ("+12 % (medium): overhead"), and in a per-board
fleet campaign each board's configuration against the same one on the reference board.
`doubts`: every warning and noise flag, grouped by what it is and counted, each group
linked to the verdict rows it concerns.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..analysis import wording
from ..analysis.boards import reference_board
from ..analysis.overhead import BARE
from ..analysis.vcpus import worst_first
from .configs import labels


SIGNIFICANT = ("interference", "overhead", "different")  # a verdict that says a change matters


def anchor(config_id: str, metric: str, prefix: str = "v") -> str:
    return f"{prefix}-" + re.sub(r"[^A-Za-z0-9_-]+", "-", f"{metric}-{config_id}")


def _fmt(v: dict, x) -> str:
    return wording.value(x, v.get("stat_unit", "ticks"), v.get("ns_per_tick"), v.get("metric_unit", "cycles"))


def change_cell(v: dict) -> str:
    """'+16.6 ms, +102 % [+95, +110]' or '+50.3 points [+49.8, +50.9]'."""
    if v.get("stat_unit") in ("share", "fraction"):
        return wording.change(v)
    if v.get("change") is None:
        return "-"
    sign = "+" if v["change"] > 0 else "-"
    return f"{sign}{_fmt(v, abs(v['change']))}, {wording.change(v)}"


def verdict_cell(v: dict) -> str:
    unit = v.get("unit_word", "runs")
    n = (v.get("units") or [0])[0]
    if v["verdict"] == "baseline":
        return "baseline"
    if v["verdict"] == "inconclusive":
        need = v.get("need_units")
        return f"inconclusive: {n} {unit}" + (f", need {need}" if need else f" ({v.get('reason', '')})")
    words = f" ({v['magnitude']})" if v.get("magnitude") else ""
    if v["verdict"] in SIGNIFICANT:
        return f"{wording.change_size(v)}{words}: {v['verdict']}"  # as the change column: points, % or a factor
    return f"{wording.short(v, unit)}"


def answer_rows(res: dict, worst: list[str] = ()) -> list[dict]:
    """The verdicts, then each guest's overhead against the bare machine (design 'vs
    native'; the native configurations are baselines in the verdicts already), each
    metric's rows together, a guest's vCPU copies of a metric in the order of `worst`
    (the headline's worst cases, worst first); a configuration by its label
    (configs.py), its id kept."""
    overhead = [dict(v, design=f"vs {BARE}") for v in res.get("overhead") or [] if v["verdict"] != "baseline"]
    boards = [dict(v, design=f"vs {reference_board(res['configs'])}") for v in res.get("boards") or []
              if v["verdict"] != "baseline"]
    rows, named = [], labels(res)
    for v, prefix in [(v, "v") for v in res["verdicts"]] + [(v, "o") for v in overhead] + [(v, "b") for v in boards]:
        base = v["verdict"] == "baseline"
        rows.append({
            "anchor": anchor(v["config_id"], v["metric"], prefix), "verdict": v["verdict"], "metric": v["metric"],
            "config": named.get(v["config_id"], v["config_id"]), "config_id": v["config_id"],
            "design": v.get("design", ""),
            "statistic": v.get("statistic_label", "-"),
            "values": _fmt(v, v.get("value")) if base else
            f"{_fmt(v, v.get('reference_value'))} → {_fmt(v, v.get('value'))}",
            "change": "-" if base else change_cell(v),
            "floor": "-" if base else wording.floor_text(v),
            "text": verdict_cell(v), "sentence": v.get("sentence", ""),
        })
    first = list(dict.fromkeys(r["metric"] for r in rows))
    order = {m: i for i, m in enumerate(worst_first(first, {m: -worst.index(m) for m in worst if m in first}))}
    return sorted(rows, key=lambda r: order[r["metric"]])


@dataclass
class Doubt:
    title: str
    level: str
    items: list[str] = field(default_factory=list)
    links: list[tuple[str, str]] = field(default_factory=list)  # (anchor, label)
    scopes: set = field(default_factory=set)


CATEGORIES = (  # (pattern in the message, title, level)
    (r"^run status|did not pass|damaged|unreadable", "runs left out of the statistics", "error"),
    (r"samples lost", "samples lost", "warning"),
    (r"^paired windows against the real-time throttle", "paired windows that split the real-time throttle's periods",
     "warning"),
    (r"guest error", "guest errors", "warning"),
    (r"stressor", "stressors that did not run as planned", "warning"),
    (r"runs disagree", "configurations whose runs disagree by more than 5 % (the verdicts use the runs' spread)",
     "info"),
    (r"fewer than 10 samples above|percentiles above the median are coarse",
     "tail quantiles resting on few samples", "info"),
    (r"timeline event", "timeline events off their planned time", "warning"),
    (r"overflow", "histogram overflow or saturated samples", "warning"),
    (r"counter frequency", "counter frequencies that differ between runs", "warning"),
    (r"overhead", "measurement overhead above 1 % of the median", "info"),
    (r"warm-up run", "warm-up runs (excluded by design)", "info"),
)
THROTTLED = re.compile(r"^real-time throttling: .*?, so (?P<loses>[^(]+?) \(")  # analysis/stability.py
RUN_NOISE = re.compile(r"^run (?P<run>\S+): CPU (?P<cpu>\d+) spent (?P<pct>[\d.]+) ?% of the run on work outside it")


def doubts(res: dict) -> list[Doubt]:
    groups: dict[str, Doubt] = {}
    verdict_keys = {(v["config_id"], v["metric"]) for v in res["verdicts"]}
    for w in res["warnings"]:
        title, level = next(((t, lv) for pat, t, lv in CATEGORIES if re.search(pat, w["message"])),
                            ("other", w["level"]))
        g = groups.setdefault(title, Doubt(title, level))
        g.items.append(f"{w['scope']}: {w['message']}")
        g.scopes.add(w["scope"])
        cid, _, metric = w["scope"].partition("/")
        if (cid, metric) in verdict_keys:
            g.links.append((anchor(cid, metric), w["scope"]))
    measured = ((res.get("spec") or {}).get("cpus") or [0])[0]
    noisy: dict[str, list[str]] = {}
    host = Doubt("the host itself", "warning")
    for flag in res["noise_flags"]:
        m = RUN_NOISE.match(flag)
        if m:
            noisy.setdefault(m["cpu"], []).append(flag)
        elif throttled := THROTTLED.match(flag):  # it alone can make the worst case: not folded into the rest
            title = f"real-time throttling: {throttled['loses']}"
            groups[title] = Doubt(title, "warning", [flag])
        else:
            host.items.append(flag)
    n_runs = len(res["runs"])  # noise is measured in every run, passed or not
    for cpu, flags in sorted(noisy.items()):
        role = "the measurer's CPU" if int(cpu) == measured else "another CPU of the run"
        g = Doubt(f"host noise: CPU {cpu} ({role}) ran other work more than 5 % of the time in {len(flags)} of "
                  f"{n_runs} runs", "warning" if int(cpu) == measured else "info", flags)
        g.links.append(("host", "see Host"))
        groups[g.title] = g
    out = sorted(groups.values(), key=lambda d: ({"error": 0, "warning": 1, "info": 2}.get(d.level, 3), d.title))
    return out + ([host] if host.items else [])
