"""The one formatter of numbers with units, and the verdict in one sentence a safety
engineer can quote.

Numbers: every number xtalk shows (show, report tables, compare, calibrate) goes through
here. A time (unit `cycles`: counter ticks, or `ns`) is shown as a time, converted with
the run's ns per tick; any other unit (`count`, a rate such as `MB/s`, `iter/s`,
`DMIPS`) keeps its own unit and is never converted. Shares of the CPU and of samples
cannot exceed 100 % (a share measured a clock tick over is shown as 100 %). No exponents.

Sentences: from an assessment (effects.py): what changed, from what to what in the unit a
person thinks in, how sure, against which noise floor, and the verdict; or why it cannot
be decided yet.
"""
from __future__ import annotations

TIME_UNITS = ("cycles", "ns")


def in_ticks(unit: str) -> bool:
    """Whether a metric's samples are counter ticks (times); else values in their own unit."""
    return unit in TIME_UNITS


def duration(ns: float | None) -> str:
    if ns is None:
        return "-"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if abs(float(f"{ns:.3g}")) >= scale:  # 999.7 ns is 1 µs
            return f"{num(ns / scale)} {unit}"
    return f"{num(ns)} ns"


def num(v: float, signed: bool = False) -> str:
    """Three significant digits without exponents: 0.0123, 4.56, 789, 12,345, 2,574,966."""
    sign = "+" if signed and v > 0 else ""
    if abs(float(f"{v:.3g}")) >= 1000:
        return f"{sign}{v:,.0f}"
    if abs(v) >= 1e-3 or v == 0:
        return sign + f"{v:.3g}"
    return sign + f"{v:.6f}".rstrip("0") if abs(v) >= 1e-6 else f"{sign}{v:.1e}"


def value(v: float | None, stat_unit: str, ns_per_tick: float | None, metric_unit: str = "cycles") -> str:
    """A statistic's value as a person reads it: time, its own unit, % of the CPU, per second."""
    if v is None:
        return "-"
    if stat_unit == "share":
        return f"{share(v * 100)} of the CPU"
    if stat_unit == "fraction":
        return f"{share(v * 100)} of samples"
    if stat_unit == "per_s":
        return f"{num(v)}/s"
    if not in_ticks(metric_unit):
        return f"{num(v)} {metric_unit}"
    if ns_per_tick:
        return duration(v * ns_per_tick)
    return f"{v:,.0f} cycles"


def quantity(v: float | None, metric_unit: str, ns_per_tick: float | None) -> str:
    """One sample's value (a median, a maximum) of a metric in its unit: a time or its own unit."""
    return value(v, "ticks", ns_per_tick, metric_unit)


def percent(v: float | None, signed: bool = True) -> str:
    """A change in %: '+12.3 %', '-0.5 %'."""
    return "-" if v is None else f"{num(v, signed)} %"


def share(pct: float | None) -> str:
    """A share that cannot exceed 100 % (of a CPU, of samples): a measurement a clock tick
    over (busy time from /proc/stat in 10 ms ticks against a wall clock) is shown as 100 %."""
    return "-" if pct is None else f"{num(min(max(pct, 0.0), 100.0))} %"


def seconds(s: float | None) -> str:
    """A time in a run, in a column that says (s): '1.250'."""
    return "-" if s is None else f"{s:.3f}"


def times(ratio: float | None) -> str:
    """A ratio of two values of one metric: '189×'."""
    return "-" if ratio is None else f"{num(ratio)}×"


def stat_label(key: str, label: str, metric_unit: str) -> str:
    """A statistic's name for this metric: its maximum is a WCET only where it is a time."""
    return f"{label} (WCET)" if key == "max" and in_ticks(metric_unit) else label


def name_statistics(assessments: list[dict], metric_unit: str) -> None:
    """Each assessment's `statistic_label` for this metric (stat_label)."""
    for a in assessments:
        if a.get("statistic") and a.get("statistic_label"):
            a["statistic_label"] = stat_label(a["statistic"], a["statistic_label"], metric_unit)


def change(a: dict) -> str:
    """'+102 % [+95, +110]'; for shares '+50.3 points [+49.8, +50.9]'; a ratio whose change
    or interval reaches past RATIO_PAST as a factor, 'x7.28 [x0.062, x860]' (a percent of
    +85,959 reads as noise)."""
    size = change_size(a)
    if a.get("stat_unit") in ("share", "fraction") and a.get("change") is not None:
        ci = a.get("ci95")
        return size + (f" [{num(ci[0] * 100, True)}, {num(ci[1] * 100, True)}]" if ci else "")
    ci = a.get("ci95_pct")
    if not ci or None in ci or size == NO_CHANGE:
        return size
    if as_factor(a, *ci):
        return f"{factor(a['change_pct'])} [{factor(ci[0])}, {factor(ci[1])}]"
    return size + f" [{num(ci[0], True)}, {num(ci[1], True)}]"


NO_CHANGE = "change n/a"
RATIO_PAST = (-75.0, 300.0)  # a change in % beyond these reads better as a factor (x0.25, x4)


def as_factor(a: dict, *pcts: float) -> bool:
    """Whether a change of a ratio statistic is told as a factor: it or one of `pcts` is
    past RATIO_PAST."""
    lo, hi = RATIO_PAST
    return a.get("scale") == "log" and any(p is not None and not lo <= p <= hi for p in (a.get("change_pct"), *pcts))


def factor(pct: float) -> str:
    """A change in % as a factor: +628 -> 'x7.28'."""
    return f"×{num(1 + pct / 100)}"


def change_size(a: dict) -> str:
    """The change without its interval: '+102 %', 'x14.8' past RATIO_PAST, or for a share
    '+50.3 points' (a share's change in % of a few percent reads as thousands)."""
    if a.get("stat_unit") in ("share", "fraction") and a.get("change") is not None:
        return f"{num(a['change'] * 100, True)} points"
    if a.get("change_pct") is None:
        return NO_CHANGE
    return factor(a["change_pct"]) if as_factor(a) else f"{num(a['change_pct'], True)} %"


def floor_text(a: dict) -> str:
    """The noise floor: '±2.1 %'; past RATIO_PAST's high end, a factor with what it means
    (the spread between campaigns leaves nothing smaller to tell)."""
    if a.get("stat_unit") in ("share", "fraction") and a.get("noise_floor") is not None:
        return f"±{num(a['noise_floor'] * 100)} points"
    pct = a.get("noise_floor_pct")
    if pct is None:
        return "unknown"
    if a.get("scale") == "log" and pct > RATIO_PAST[1]:
        return (f"{factor(pct)} either way: its {a.get('level') or 'runs'} differ so much among themselves that "
                "no change smaller than that can be told here")
    return f"±{num(pct)} %"


def direction(a: dict, better: str) -> str:
    c = a.get("change_pct") if a.get("change_pct") is not None else a.get("change")
    if not c:
        return ""
    worse = c > 0 if better == "lower" else c < 0
    return " (worse)" if worse else " (better)"


def sentence(label: str, metric: str, a: dict, secondary: list[dict], better: str, ns_per_tick: float | None,
             metric_unit: str, unit_word: str) -> str:
    fmt = lambda v, s=a: value(v, s.get("stat_unit", "ticks"), ns_per_tick, metric_unit)  # noqa: E731
    verdict = a["verdict"]
    what = f"{metric} {a['statistic_label']}"
    if verdict == "baseline":
        return f"{label} is the baseline for {metric}: {a['statistic_label']} {fmt(a.get('value'))}" \
               f" over {a['units'][0]} {unit_word}."
    if a.get("value") is None or a.get("reference_value") is None:
        return f"{label}: {what}: {verdict}: {a.get('reason', '')}."
    head = (f"{label}: {what} {fmt(a['reference_value'])} → {fmt(a['value'])}, {change(a)}{direction(a, better)}")
    also = "; ".join(f"{s['statistic_label']} {fmt(s.get('reference_value'), s)} → {fmt(s.get('value'), s)}"
                     for s in secondary if s.get("value") is not None)
    return f"{head}" + (f"; {also}" if also else "") + f". {evidence(a, unit_word)}: {short(a, unit_word)}."


def evidence(a: dict, unit_word: str) -> str:
    """'p=0.0079 (5 vs 5 runs), noise floor ±2.1 %', naming the test where it is a t-test
    (too few units for an exact one) and the drift between campaigns where it entered."""
    n = a.get("units") or [0, 0]
    count = f"{n[0]} vs {n[1]} {unit_word}" + (f", {a['runs'][0]} vs {a['runs'][1]} runs" if a.get("runs") else "")
    if a.get("p_value") is None:
        return count
    test = a.get("test") or ""
    text = f"p={a['p_value']:.2g}" + (f" by {test}" if "t-test" in test else "") + \
        f" ({count}), noise floor {floor_text(a)}"
    drift = a.get("drift") or {}
    return text + (f" ({drift['text']})" if drift.get("text") else "")


def short(a: dict, unit_word: str = "runs") -> str:
    """The verdict in a few words: 'interference', 'no interference (within ±2.1 %)',
    'inconclusive: need 8 runs per side' (also for 'no difference' and 'no overhead')."""
    verdict = a["verdict"]
    if verdict.startswith("no-"):
        return f"{verdict.replace('-', ' ')} (within ±{_within(a)})"
    if verdict == "inconclusive":
        need = a.get("need_units")
        return f"inconclusive ({a.get('reason', 'no reason given')}" + (
            f"; about {need} {unit_word} per side would decide it)" if need else ")")
    return verdict


def mde_text(a: dict) -> str:
    if a.get("stat_unit") in ("share", "fraction") and a.get("mde") is not None:
        return f"±{num(a['mde'] * 100)} points"
    return f"±{num(a['mde_pct'])} %" if a.get("mde_pct") is not None else "-"


def _within(a: dict) -> str:
    if a.get("stat_unit") in ("share", "fraction") and a.get("ci95"):
        return f"{num(max(abs(a['ci95'][0]), abs(a['ci95'][1])) * 100)} points"
    ci = a.get("ci95_pct") or [0, 0]
    return f"{num(max(abs(ci[0]), abs(ci[1])))} %"
