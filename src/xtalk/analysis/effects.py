"""Is there a change, how large, how sure: one assessment per (statistic, comparison),
the same for a configuration against its baseline, for on- against off-windows of the
paired design (paired.py) and for campaigns B against campaigns A (comparison.py, with the
campaign as a level: levels.py).

Decision (docs/analysis.md, "Verdicts"):
* `interference` (in a comparison of campaigns: `different`): the test over units
  (inference.two_sample_test: exact permutation where it can reach alpha, else Welch's t)
  gives p < alpha AND the 95% interval excludes no change AND the change is larger than
  the noise floor AND larger than the negligible change (a real shift too small to
  matter is not called one: A/A campaigns run back to back do differ by a few %);
* `no-interference` (`no-difference`): not that, the design has a test at all,
  and the 95% confidence interval of the change lies inside +/- the negligible change
  (Rules: 5 % for ratios, 1 point for shares), an equivalence test in the manner of TOST:
  any effect is too small to matter; "within +/-X %" quotes the interval's far end;
* `inconclusive` otherwise, with the reason and the units (runs, on/off windows) that would
  decide it: for a change larger than negligible, the units that detect it with 80%
  power; else the units whose 95% interval would fit inside the negligible change (never
  fewer than an exact test needs to reach alpha).
Only the kind's primary statistic gets a verdict; the others get a change and its
interval, no test (one test per metric and configuration, not one per statistic).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import inference, power
from .kinds import ArraySample, MetricInfo, Sample, Stat, StreamSample, compute, long_gap_ticks, to_pct, transform

VERDICTS = ("baseline", "interference", "no-interference", "inconclusive")
LABELS = VERDICTS[1:]  # what a change is called: (significant, negligible, neither)


def deadline_ticks(deadlines: list[dict], metric: str, freq_hz: float | None) -> float | None:
    for d in deadlines:
        if d.get("metric") == metric:
            if d.get("cycles") is not None:
                return float(d["cycles"])
            return float(d["ns"]) * freq_hz / 1e9 if freq_hz and d.get("ns") is not None else None
    return None


def unit_stats(sample: Sample, info: MetricInfo, deadlines: list[dict]) -> dict[str, float | None]:
    """Every statistic of the metric's kind for one unit (a run or a window)."""
    lg, _ = long_gap_ticks(deadlines, info.name, sample.freq_hz)
    dl = deadline_ticks(deadlines, info.name, sample.freq_hz)
    return {s.key: compute(s, sample, lg, dl) for s in info.kind.stats}


def run_window_s(meta: dict, metric: str) -> tuple[float | None, bool]:
    """(measured window of the metric in seconds, measured?) of a run: the guest's
    window_ticks_<id> META, else the run's duration_s (the requested length)."""
    freq = meta.get("freq_hz")
    for mid, m in (meta.get("metrics") or {}).items():
        ticks = (meta.get("guest_meta") or {}).get(f"window_ticks_{mid}")
        if m.get("name") == metric and ticks and freq:
            return int(ticks) / float(freq), True
    d = meta.get("duration_s")
    return (float(d) if d else None), False


def run_sample(stream, meta: dict) -> Sample:
    window, _ = run_window_s(meta, stream.metric)
    return StreamSample(stream, window)


def window_sample(stream, a: float, b: float) -> Sample | None:
    """The samples of a run between a and b seconds (t_s), raw when the run kept them,
    else its stride subsample; None without sample times."""
    values, times, weight = stream.exact, stream.exact_t, 1.0
    if values is None:
        _, values, times = stream.subsample()
        weight = float(stream.stride)
    if times is None or not len(times) or not np.isfinite(times).all():
        return None
    sel = (times >= a) & (times < b)
    return ArraySample(values[sel], b - a, stream.freq_hz, weight)


def typical(values: list[float], scale: str) -> float | None:
    """The group's value: geometric mean on the log scale, arithmetic mean else."""
    if not values:
        return None
    return float(np.exp(np.mean(np.log(values)))) if scale == "log" else float(np.mean(values))


@dataclass(frozen=True)
class Rules:
    """The decision's settings (spec [analysis]): the significance level, the change that
    does not matter (for ratios in %, for shares and fractions in points), and the drift
    between campaigns assumed where it was never measured (levels.py)."""

    alpha: float = power.ALPHA
    negligible_pct: float = 5.0
    negligible_points: float = 1.0
    drift_pct: float = 25.0
    drift_points: float = 3.0

    def margin(self, stat: Stat, scale: str, ref: float | None) -> float | None:
        """The negligible change on the analysis scale."""
        return _on_scale(self.negligible_pct, self.negligible_points, stat, scale, ref)

    def drift_margin(self, stat: Stat, scale: str, ref: float | None) -> float | None:
        """The assumed drift between campaigns on the analysis scale."""
        return _on_scale(self.drift_pct, self.drift_points, stat, scale, ref)

    def magnitude(self, stat: Stat, change_pct: float | None, change: float | None) -> str | None:
        """The size of a change in words: negligible (below the negligible change), small,
        medium (>= 10 % / 5 points), large (>= 50 % / 20 points)."""
        if stat.unit in ("share", "fraction"):
            size, steps = (None if change is None else abs(change) * 100), (self.negligible_points, 5.0, 20.0)
        else:
            size, steps = (None if change_pct is None else abs(change_pct)), (self.negligible_pct, 10.0, 50.0)
        if size is None:
            return None
        return "negligible" if size < steps[0] else "small" if size < steps[1] else "medium" if size < steps[2] \
            else "large"

    @classmethod
    def of(cls, spec: dict) -> "Rules":
        a = spec.get("analysis") or {}
        return cls(**{k: float(a[k]) for k in ("alpha", "negligible_pct", "negligible_points", "drift_pct",
                                               "drift_points") if a.get(k) is not None})


def _on_scale(pct: float, points: float, stat: Stat, scale: str, ref: float | None) -> float | None:
    """A size given in % (ratios) or points (shares) on the analysis scale."""
    if scale == "log":
        return math.log1p(pct / 100)
    if stat.unit in ("share", "fraction"):
        return points / 100
    return pct / 100 * abs(ref) if ref else None


def decide(test: inference.Test, diff: float, ci: tuple[float, float] | None, fl: dict, margin: float | None,
           alpha: float, labels: tuple[str, str, str], units: str) -> tuple[str, str]:
    """(verdict, reason); labels = (interference, no-interference, inconclusive) words. A
    change is called only where the test, the 95% interval (it excludes no change), the
    noise floor and the negligible change all say so: a verdict never contradicts its
    interval."""
    yes, no, maybe = labels
    p = test.p
    significant = p is not None and p < alpha
    clear_of_zero = ci is not None and (ci[0] > 0 or ci[1] < 0)
    above_floor = fl["floor"] is not None and abs(diff) > fl["floor"]
    if significant and clear_of_zero and above_floor and (margin is None or abs(diff) > margin):
        return yes, f"p={p:.2g} < {alpha:g}, above the noise floor and larger than the negligible change"
    if p is None:
        return maybe, f"too few {units} for a test (it needs at least 2 on each side)"
    if test.min_p >= alpha:
        return maybe, f"the {test.name} of this many {units} cannot reach p < {alpha:g} (smallest p {test.min_p:.2g})"
    if fl["floor"] is None:
        return maybe, f"no noise floor: fewer than 2 reference {units}"
    if ci is not None and margin is not None and max(abs(ci[0]), abs(ci[1])) <= margin:
        return no, "the 95% interval lies inside the negligible change"
    if significant and not clear_of_zero:
        return maybe, (f"p={p:.2g} < {alpha:g}, but the 95% interval includes no change (skewed {units}): "
                       "the test and the interval disagree")
    if significant and above_floor:
        return maybe, "a significant change about the size of the negligible change"
    if significant:
        return maybe, "significant, but not above the noise floor"
    return maybe, "the 95% interval reaches beyond the negligible change"


def assessment(stat: Stat, scale: str, diff: float, se, df, test: inference.Test, fl: dict,
               n: tuple[int, int], values: tuple[float | None, float | None], rules: Rules,
               labels: tuple[str, str, str], spread: float | None, paired: bool, units: str | None = None) -> dict:
    """The assessment record of one statistic (report.json verdicts[] / compare rows[]);
    `spread`: the sd of one unit's value, for the units that would decide it; `units`: what
    a unit is called (runs, on/off windows, campaigns)."""
    ci = inference.interval(diff, se, df)
    ref = values[1]
    margin = rules.margin(stat, scale, ref)
    verdict, reason = decide(test, diff, ci, fl, margin, rules.alpha, labels,
                             units or ("windows" if paired else "runs"))
    need = None
    if verdict == labels[2] and margin is not None:
        if abs(diff) > margin:   # a change that matters: units to detect it
            need = inference.units_needed(spread, diff, rules.alpha, paired=paired)
        else:                    # units for a 95% interval inside the negligible change
            need = inference.units_needed(spread, margin - abs(diff), 0.05, power=0.5, paired=paired)
            need = max(need, power.min_units(rules.alpha, paired)) if need else None
    return {
        "statistic": stat.key, "statistic_label": stat.label, "stat_unit": stat.unit, "scale": scale,
        "value": values[0], "reference_value": ref,
        "change": diff if scale == "diff" else (values[0] - ref if values[0] is not None and ref is not None else None),
        "change_pct": to_pct(diff, scale, ref),
        "ci95_pct": [to_pct(ci[0], scale, ref), to_pct(ci[1], scale, ref)] if ci else None,
        "ci95": list(ci) if ci and scale == "diff" else None,
        "noise_floor_pct": to_pct(fl["floor"], scale, ref), "mde_pct": to_pct(fl["mde"], scale, ref),
        "noise_floor": fl["floor"] if scale == "diff" else None, "mde": fl["mde"] if scale == "diff" else None,
        "negligible_pct": to_pct(margin, scale, ref), "negligible": margin if scale == "diff" else None,
        "floor_source": fl["source"], "p_value": test.p, "p_exact": test.exact, "test": test.name,
        "alpha": rules.alpha, "units": list(n), "min_p": test.min_p, "verdict": verdict, "reason": reason, "need_units": need,
        "magnitude": rules.magnitude(stat, to_pct(diff, scale, ref), diff if scale == "diff" else None),
    }


def assess_runs(stat: Stat, cfg: list[float | None], ref: list[float | None], rules: Rules,
                rng: np.random.Generator, labels: tuple[str, str, str] = LABELS) -> dict:
    """One statistic of a configuration's runs against its reference's runs."""
    a = [v for v in cfg if v is not None]
    b = [v for v in ref if v is not None]
    if not a or not b:
        return {"statistic": stat.key, "statistic_label": stat.label, "stat_unit": stat.unit,
                "verdict": labels[2], "units": [len(a), len(b)],
                "reason": f"no {stat.label} in {'the configuration' if not a else 'the reference'}"}
    x, scale = transform(a + b, stat)
    xa, xb = x[:len(a)], x[len(a):]
    diff, se, df = inference.welch(xa, xb)
    test = inference.two_sample_test(xa, xb, rules.alpha, rng)
    fl = inference.floor_and_mde(xb, len(a), len(b), rules.alpha, rng=rng)
    spread = math.sqrt((xa.var(ddof=1) + xb.var(ddof=1)) / 2) if len(xa) > 1 and len(xb) > 1 else fl["sd"]
    return assessment(stat, scale, diff, se, df, test, fl, (len(a), len(b)),
                      (typical(a, scale), typical(b, scale)), rules, labels, spread, paired=False)


def describe_change(stat: Stat, cfg: list[float | None], ref: list[float | None]) -> dict:
    """A secondary statistic: values, change and its 95% interval, no test."""
    a = [v for v in cfg if v is not None]
    b = [v for v in ref if v is not None]
    out = {"statistic": stat.key, "statistic_label": stat.label, "stat_unit": stat.unit}
    if not a or not b:
        return out
    x, scale = transform(a + b, stat)
    diff, se, df = inference.welch(x[:len(a)], x[len(a):])
    ci = inference.interval(diff, se, df)
    ref_value = typical(b, scale)
    out.update(value=typical(a, scale), reference_value=ref_value, scale=scale,
               change_pct=to_pct(diff, scale, ref_value),
               ci95_pct=[to_pct(ci[0], scale, ref_value), to_pct(ci[1], scale, ref_value)] if ci else None)
    return out
