"""The paired design: a stressor switched off and on inside each run (the spec's
[paired], or any timeline that starts/stops, pauses/resumes stressors), analysed as each
on-window against the off-windows next to it, which cancels what differs between boots
(memory placement, host state) and slow drift.

Windows come from each run's *executed* timeline events (windows.py: off while no
stressor of the timeline is active, on otherwise, the first `settle` seconds of every
window dropped, the transition itself: default 10% of the window). Per window the
metric kind's statistics are computed on the window's samples (kinds.py); per cycle
d = x(on) - mean(x(off before), x(off after)) on the analysis scale (log of the statistic
for ratios). Evidence: the sign-flip test of mean(d) = 0 over every cycle of every run
(the one-sample t-test where fewer than 8 on/off windows cannot reach alpha 0.01);
noise floor from the same contrast among off-windows alone
a = x(off_j) - mean(x(off_j-1), x(off_j+1)) (inference.paired_floor).
Caveat: cycles are treated as independent and the stressor's effect as the same in
every run; the last window ends at the measured window's end (or the last sample).
"""
from __future__ import annotations

import numpy as np

from . import inference
from .effects import Rules, assessment, describe_change, run_window_s, typical, unit_stats, window_sample
from .kinds import MetricInfo, Stat, to_pct, transform
from .windows import contrasts, windows


def run_windows(stream, meta: dict, events: list[dict], info: MetricInfo, deadlines: list[dict],
                settle_s: float | None) -> list[tuple[dict, bool]]:
    """Every statistic of each window of one run, with its state."""
    end, _ = run_window_s(meta, info.name)
    if end is None:
        times = stream.exact_t if stream.exact_t is not None else stream.subsample()[2]
        end = float(np.nanmax(times)) if len(times) else None
    out = []
    for a, b, on in windows(events, end, settle_s):
        sample = window_sample(stream, a, b)
        if sample is not None:
            out.append((unit_stats(sample, info, deadlines), on))
    return out


def cycle_values(stat: Stat, per_run: list[list[tuple[dict, bool]]]) -> tuple[str, list, list, list, list] | None:
    """(analysis scale, per-cycle differences d, off/off contrasts, on- and off-window
    values) of one statistic over every run's windows; None without a window value."""
    raw = [v[stat.key] for run in per_run for v, _ in run if v[stat.key] is not None]
    if not raw:
        return None
    _, scale = transform(raw, stat)
    conv = (np.log if scale == "log" else np.asarray)
    d, aa, on_raw, off_raw = [], [], [], []
    for run in per_run:
        seq = [(None if v[stat.key] is None else float(conv(v[stat.key])), on) for v, on in run]
        cyc, a = contrasts(seq)
        d += [x - ref for x, ref in cyc]
        aa += a
        on_raw += [v[stat.key] for v, on in run if on and v[stat.key] is not None]
        off_raw += [v[stat.key] for v, on in run if not on and v[stat.key] is not None]
    return scale, d, aa, on_raw, off_raw


def assess(stat: Stat, per_run: list[list[tuple[dict, bool]]], rules: Rules, rng: np.random.Generator,
           secondary: bool = False) -> dict:
    """The paired verdict (or, `secondary`, only the change) of one statistic."""
    found = cycle_values(stat, per_run)
    if found is None:
        return {"statistic": stat.key, "statistic_label": stat.label, "stat_unit": stat.unit,
                "verdict": "inconclusive", "units": [0, 0], "reason": "no windows with samples"}
    scale, d, aa, on_raw, off_raw = found
    values = (typical(on_raw, scale), typical(off_raw, scale))
    if secondary:
        out = describe_change(stat, on_raw, off_raw)
        if d:
            diff, se, df = inference.one_sample(np.asarray(d))
            ci = inference.interval(diff, se, df)
            out.update(change_pct=to_pct(diff, scale, values[1]),
                       ci95_pct=[to_pct(c, scale, values[1]) for c in ci] if ci else None)
        return out
    if not d:
        return {"statistic": stat.key, "statistic_label": stat.label, "stat_unit": stat.unit,
                "verdict": "inconclusive", "units": [0, 0], "reason": "no on-window next to an off-window"}
    diff, se, df = inference.one_sample(np.asarray(d))
    test = inference.one_sample_test(np.asarray(d), rules.alpha, rng)
    fl = inference.paired_floor(np.asarray(aa), np.asarray(d), rules.alpha)
    return assessment(stat, scale, diff, se, df, test, fl, (len(d), len(d)), values,
                      rules, ("interference", "no-interference", "inconclusive"),
                      float(np.std(d, ddof=1)) if len(d) > 1 else fl["sd"], paired=True)
