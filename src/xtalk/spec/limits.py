"""How big a campaign spec may make its plan, checked from the spec's own numbers before
anything is expanded: paired windows and timeline events per run, configurations (the
matrix's product) and runs, and how deep tables and arrays nest. A spec over a limit is
refused (exit 2) with the field, the number it would make and the limit; nothing is
built first, so a spec such as off_s = on_s = 1e-9 is refused at once instead of
planning billions of events.

The limits are generous for real use: the example campaigns (experiments/*.toml) have at
most 24 configurations, 5 repetitions, 2 timeline events and tables 4 deep, the paired
design's tests 1 s windows (tens a run); a paired run of an hour with 1 s windows has
3,600 windows. Each is far below what loading, checking and
planning a spec can do in about a second (docs/spec.md, "Limits").
Caveat: configurations are counted before solo collapses (the matrix's full product),
so a campaign near the limit may plan fewer.
"""
from __future__ import annotations

import math

MAX_WINDOWS = 10_000  # paired off/on windows in one run: an hour of 0.36 s windows
MAX_TIMELINE_EVENTS = 20_000  # timeline events of one run (paired: a switch of each stressor switched)
MAX_CONFIGURATIONS = 2_000  # configurations of the matrix (its product, before solo collapses)
MAX_RUNS = 50_000  # configurations x (repetitions + warm-up runs): 6 days of 10 s runs
MAX_NESTING = 16  # tables and arrays in one another (a spec's deepest: measurer.params.<bench>.<key>)

Located = list[tuple[tuple, str]]


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _ceil(value: float) -> float:
    return math.ceil(value) if math.isfinite(value) else value


def paired_switches(duration: float, off: float, on: float) -> float:
    """How often the paired design switches a stressor in a run: at off_s, off_s + on_s,
    2 off_s + on_s, ... before duration (one window more than that: the first off)."""
    cycle = off + on
    return _ceil(max(0.0, (duration - off) / cycle)) + _ceil(max(0.0, (duration - cycle) / cycle))


def _table(raw: dict, key: str) -> dict:
    return raw.get(key) if isinstance(raw.get(key), dict) else {}


def _list(table: dict, key: str) -> list:
    return table.get(key) if isinstance(table.get(key), list) else []


def _paired(raw: dict) -> Located:
    paired, run, matrix = raw.get("paired"), _table(raw, "run"), _table(raw, "matrix")
    if not isinstance(paired, dict):
        return []
    off, on = paired.get("off_s", 1.0), paired.get("on_s", 1.0)
    durations = [run.get("duration_s", 10.0)] + _list(matrix, "run.duration_s")
    durations = [d for d in durations if _number(d) and d > 0]
    if not (_number(off) and _number(on) and off > 0 and on > 0 and durations):
        return []  # the model says what is wrong
    duration = max(durations)
    switches = paired_switches(duration, off, on)
    given = [k for k in ("off_s", "on_s") if k in paired]
    if switches + 1 > MAX_WINDOWS:
        loc = ("paired", min(given, key=lambda k: paired[k])) if given else ("run", "duration_s")
        return [(loc, f"off_s = {off:g} s and on_s = {on:g} s make {switches + 1:,.0f} windows in a run of "
                      f"run.duration_s = {duration:g} s, more than the {MAX_WINDOWS:,} a run may have "
                      f"(make the windows longer or the run shorter)")]
    chosen = paired.get("stressors")
    targets = len(chosen) if isinstance(chosen, list) and chosen else len(_list(raw, "stressors"))
    if switches * targets > MAX_TIMELINE_EVENTS:
        loc = ("paired", "stressors") if "stressors" in paired else ("paired",)
        return [(loc, f"{switches:,.0f} switches of {targets} stressors make {switches * targets:,.0f} timeline "
                      f"events in a run, more than the {MAX_TIMELINE_EVENTS:,} a run may have")]
    return []


def _matrix(raw: dict) -> Located:
    matrix = _table(raw, "matrix")
    sizes = {dim: len(values) for dim, values in matrix.items() if isinstance(values, list)}
    if "placement" not in sizes:
        sizes["placement"] = 3 if _list(raw, "stressors") else 1
    configurations = math.prod(sizes.values())
    if configurations > MAX_CONFIGURATIONS:
        largest = max((d for d in sizes if d in matrix), key=sizes.__getitem__)
        product = " x ".join(f"{dim} {n:,}" for dim, n in sizes.items() if n > 1)
        return [(("matrix", largest), f"the matrix makes {configurations:,} configurations ({product}), more than "
                                      f"the {MAX_CONFIGURATIONS:,} a campaign may have")]
    run = _table(raw, "run")
    repetitions, warmup = run.get("repetitions", 1), run.get("warmup_runs", 0)
    if not (_count(repetitions) and _count(warmup)):
        return []
    runs = configurations * (repetitions + warmup)
    if runs > MAX_RUNS:
        loc = ("run", "warmup_runs" if warmup > repetitions else "repetitions")
        return [(loc, f"{configurations:,} configuration(s) x ({repetitions:,} repetitions + {warmup:,} warm-up "
                      f"runs) make {runs:,} runs, more than the {MAX_RUNS:,} a campaign may have")]
    return []


def size_problems(raw: dict) -> Located:
    """What in the spec would make a plan over the limits (nothing when none)."""
    timeline = _list(raw, "timeline")
    out = _paired(raw) + _matrix(raw)
    if len(timeline) > MAX_TIMELINE_EVENTS:
        out.append((("timeline",), f"{len(timeline):,} timeline events, more than the {MAX_TIMELINE_EVENTS:,} "
                                   f"a run may have"))
    return out


def too_deep(raw: object) -> tuple | None:
    """The path to a value nested deeper than MAX_NESTING tables and arrays, or None
    (found without recursion: the value may be nested thousands deep)."""
    stack: list[tuple[tuple, object]] = [((), raw)]
    while stack:
        path, node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in items:
            if len(path) >= MAX_NESTING:
                return path + (key,)
            stack.append((path + (key,), value))
    return None
