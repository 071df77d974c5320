"""The on/off windows of the paired design (analysis/paired.py), in plain Python: where
each window of a run begins and ends from its executed timeline events, the cycles and
the off/off contrasts of the windows' values, and whether runs switched a stressor at
all. `xtalk spec check`'s design check counts a design's cycles with these, without
importing NumPy (issue 46).
A window is off while no stressor of the timeline is active, on otherwise; a stressor
whose first event stops or pauses it was on from boot. The first `settle_s` seconds of
every window (default SETTLE_SHARE of the window) are dropped: the transition itself.
Caveat: the last window ends at end_s (the measured window's end, or the last sample).
"""
from __future__ import annotations

SETTLE_SHARE = 0.1


def windows(events: list[dict], end_s: float, settle_s: float | None = None) -> list[tuple[float, float, bool]]:
    """(start, end, on?) of each window between executed timeline events, the first
    settle_s (default: SETTLE_SHARE of the window) of every window dropped."""
    if not events or end_s is None:
        return []
    first = {}
    for e in events:
        first.setdefault(e.get("target"), e.get("action"))
    active = {t for t, action in first.items() if action in ("pause", "stop")}  # on from boot
    bounds, states = [0.0], [bool(active)]
    for e in events:
        t, action = e.get("t_s"), e.get("action")
        if t is None or t <= bounds[-1] or t >= end_s:
            continue
        (active.add if action in ("start", "resume") else active.discard)(e.get("target"))
        if bool(active) != states[-1]:
            bounds.append(float(t))
            states.append(bool(active))
    bounds.append(float(end_s))
    out = []
    for a, b, on in zip(bounds, bounds[1:], states):
        settle = settle_s if settle_s is not None else SETTLE_SHARE * (b - a)
        if b - a > settle:
            out.append((a + settle, b, on))
    return out


def contrasts(values: list[tuple[float | None, bool]]) -> tuple[list[tuple[float, float]], list[float]]:
    """From one run's windows in time order ((x, on?), x on the analysis scale or None):
    the cycles (x(on), mean of the neighbouring off x) and the off/off A/A contrasts."""
    cycles, aa = [], []
    for i, (x, on) in enumerate(values):
        if x is None:
            continue
        around = [values[j][0] for j in (i - 1, i + 1) if 0 <= j < len(values)
                  and values[j][1] != on and values[j][0] is not None]
        if on and around:
            cycles.append((x, sum(around) / len(around)))
        if not on:
            offs = [values[j][0] for j in (i - 2, i + 2) if 0 <= j < len(values)
                    and not values[j][1] and values[j][0] is not None]
            if len(offs) == 2:
                aa.append(x - sum(offs) / len(offs))
    return cycles, aa


def has_windows(events_by_run: dict[str, list[dict]], run_ids: list[str]) -> bool:
    """True when the runs switched a stressor on and off (a timeline with effect)."""
    return any(e.get("action") in ("start", "resume", "pause", "stop")
               for r in run_ids for e in events_by_run.get(r, []))
