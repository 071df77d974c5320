"""`xtalk calibrate`: before a long campaign, can this setup measure what I need?

Two short campaigns on the spec's backend and CPUs, stored like any other:
1. *steal*: the hidden_latency probe next to a host thread at real-time priority that
   steals the measured CPU every `period_us`, for each of two lengths or more
   (`steal_us`; the `steal` host stressor, which logs every steal it made), against the
   same thread stealing nothing (a control that only wakes up). Each logged steal is
   matched to the measurer's gap that covers it and measured gap is fitted against
   injected length over all steals (src/xtalk/calibration/steal.py). Checks: per length,
   the steals the probe saw; for the longest, the stolen share it adds and the verdict
   `interference`; over all, the slope within 5 % of 1 (calibrate_steal.TOLERANCE).
   The intercept is one preemption's cost on this host and backend (switching to the
   stealing thread and back: real time the measurer lost, not a measuring error),
   recorded as a fact of the platform in OUT/platform/ and from then on in every run's
   meta.json (results/platform.py). The slope replaced the check of the total stolen
   time, which that switch cost failed with short steals.
2. *A/A*: the spec's own measurer alone, `runs` runs, split odd against even runs: the
   verdict must not be `interference`; the spread gives the noise floor and the
   minimum detectable effect of fresh-VM runs and, from windows inside each run, of the
   paired design, both for one minute of measurement per configuration (the formula:
   analysis.power.detectable, as the analysis's own noise floor and MDE use it).
Both campaigns' machine lines (analysis/measurability.py: other work on the measured CPU,
the reference's spread) are kept; where the worse of them says this machine cannot measure
here, calibrate is not `ok` and its bottom line says why, with that line's numbers: what it
recovered or missed was then the other work's doing as much as the setup's.
Backends whose guests run on another machine (xen: the measured CPU is a pCPU of the
hypervisor, not of this host) are refused: no host thread can steal from them.
"""
from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..analysis import power
from ..analysis.effects import assess_runs, unit_stats, window_sample
from ..analysis.measurability import ORDER
from ..analysis.wording import sentence
from ..plugins import backend_class
from .steal import SLOPE_CHECK, STEAL_US, steal_checks
from ..running.derived import base, run_spec
from ..errors import Problem, SpecError
from ..results.platform import write_platform


@dataclass(frozen=True)
class Settings:
    steal_us: tuple[float, ...] = (300.0, 1000.0)
    period_us: float = 10000.0
    duration_s: float = 2.0
    runs: int = 5


def steal_lengths(given: list[float], period_us: float) -> tuple[float, ...]:
    """The lengths to inject: those given, and with one length L a second so that a fit is
    possible: 2L where that is at most half the period, else L/2."""
    if len(given) > 1:
        return tuple(given)
    (length,) = given
    return (length, 2 * length) if 2 * length <= period_us / 2 else (length / 2, length)


def check_backend(spec) -> None:
    cls = backend_class(spec.backend.kind)
    if cls is not None and not cls.measures_local_cpus:
        raise SpecError("calibrate", [Problem("backend.kind", (
            f"{spec.backend.kind}: the measured CPU belongs to another machine or hypervisor, so no host thread can "
            "steal from it; measure a known effect there with a cpu_spin stressor on the measurer's CPU "
            "(placement same-core) and the paired design instead"))])


def _whole(x: float) -> float | int:
    return int(x) if float(x).is_integer() else x


def steal_spec(raw: dict, settings: Settings) -> dict:
    spec = base(raw, f"{raw['name']}-calibrate-steal", settings.duration_s, settings.runs)
    lengths = ", ".join(f"{x:g}" for x in settings.steal_us)
    spec["description"] = (f"xtalk calibrate: hidden_latency next to a host thread stealing {lengths} us "
                           f"every {settings.period_us:g} us of the measured CPU, against one that steals nothing")
    spec["measurer"] = {"bench": "hidden_latency"}
    spec["stressors"] = [{"name": "steal", "bench": "steal", "host": True,
                          "params": {"period_us": _whole(settings.period_us)}}]
    # the injector first: a real-time measurer started first would starve its start-up
    spec["matrix"] = {"placement": ["same-core"], "start_order": ["stressor-first"],
                      STEAL_US: [0, *map(_whole, settings.steal_us)]}
    spec["analysis"] = {"baseline": f"{STEAL_US}=0"}
    return spec


def aa_spec(raw: dict, settings: Settings) -> dict:
    spec = base(raw, f"{raw['name']}-calibrate-aa", settings.duration_s, 2 * settings.runs)
    spec["description"] = "xtalk calibrate: the measurer alone, odd runs against even runs (A/A)"
    spec["measurer"] = copy.deepcopy(raw["measurer"])
    return spec


def aa_result(analysis, settings: Settings) -> dict:
    """The A/A check, the noise floor and the minimum detectable effect per minute."""
    from ..analysis.verdict import Context
    ctx = Context.of(analysis)
    rules = ctx.rules
    (cid,) = ctx.runs_of
    metric = sorted(analysis.infos)[0]
    info = analysis.infos[metric]
    stat = info.kind.primary
    units = ctx.run_units(cid, info)
    reps = {m["run_id"]: m.get("repetition", 0) for m in ctx.runs_of[cid]}
    odd = [u[stat.key] for r, u in units if reps[r] % 2]
    even = [u[stat.key] for r, u in units if not reps[r] % 2]
    row = assess_runs(stat, odd, even, rules, ctx.rng, ("different", "no-difference", "inconclusive"))
    row["sentence"] = sentence("A/A, odd vs even runs", metric, row, [], info.kind.better,
                               analysis.pooled[(cid, metric)].ns_per_tick, info.unit, "runs")
    values = np.log([v for v in odd + even if v]) if row.get("scale") == "log" else np.asarray(odd + even)
    per_minute = {"runs": _runs_mde(values, settings.duration_s, rules.alpha, row.get("scale"), row),
                  "paired": _paired_mde(ctx, cid, info, settings.duration_s, rules.alpha, row),
                  "unit": "points" if row.get("scale") == "diff" and stat.unit in ("share", "fraction") else "%"}
    return {"metric": metric, "statistic": stat.label, "assessment": row, "mde_per_minute": per_minute,
            "check": {"name": "A/A: odd against even runs", "expected": "not different",
                      "measured": row["verdict"], "unit": "", "ok": row["verdict"] != "different",
                      "status": "no false alarm" if row["verdict"] != "different" else "false alarm"}}


def _as_pct(delta: float, scale: str | None, row: dict) -> float | None:
    """An MDE on the analysis scale in the unit the report uses: % for ratios, points
    for shares, % of the reference for other differences."""
    if scale == "log":
        return (math.exp(delta) - 1) * 100
    if row.get("stat_unit") in ("share", "fraction"):
        return delta * 100
    ref = row.get("reference_value")
    return delta / ref * 100 if ref else None


def _scaled(row: dict, key: str, points: bool) -> float | None:
    value = row.get(key) if points else row.get(f"{key}_pct")
    return value * 100 if points and value is not None else value


def _runs_mde(x: np.ndarray, duration_s: float, alpha: float, scale, row) -> float | None:
    """MDE of fresh-VM runs with one minute of measurement per configuration."""
    k = max(power.min_units(alpha), math.ceil(60 / duration_s))
    if len(x) < 2:
        return None
    df = 2 * k - 2
    mde = power.detectable(float(x.std(ddof=1)), df, alpha) * math.sqrt(2 / k)
    return _as_pct(mde, scale, row)


def _paired_mde(ctx, cid: str, info, duration_s: float, alpha: float, row) -> float | None:
    """MDE of the paired design (1 s windows, or a sixth of the run) in one minute: from
    the contrast of each window with its two neighbours in the A/A runs."""
    w = min(1.0, duration_s / 6)
    stat = info.kind.primary
    contrasts = []
    for meta in ctx.runs_of[cid]:
        stream = ctx.streams.get((meta["run_id"], info.name))
        if stream is None:
            continue
        xs = []
        for j in range(int(duration_s / w)):
            sample = window_sample(stream, j * w, (j + 1) * w)
            v = unit_stats(sample, info, []).get(stat.key) if sample is not None and sample.n else None
            xs.append(None if v is None or (row.get("scale") == "log" and v <= 0)
                      else (math.log(v) if row.get("scale") == "log" else v))
        contrasts += [xs[j] - (xs[j - 1] + xs[j + 1]) / 2 for j in range(1, len(xs) - 1)
                      if None not in (xs[j - 1], xs[j], xs[j + 1])]
    if len(contrasts) < 3:
        return None
    cycles = max(power.min_units(alpha, paired=True), int(60 / (2 * w)))
    df = len(contrasts) - 1
    mde = power.detectable(float(np.std(contrasts, ddof=1)), df, alpha) / math.sqrt(cycles)
    return _as_pct(mde, row.get("scale"), row)


def _by_name(checks: list[dict], name: str) -> dict:
    return next(c for c in checks if c["name"] == name)


def record_platform(out: Path, steal, backend: str, settings: Settings, figures: dict, slope_ok: bool) -> dict:
    """The switch cost as a fact of this host and backend (results/platform.py), where the
    slope check holds: a measurement whose scale is off gives no intercept to trust."""
    if not slope_ok:
        return {"file": None, "reason": "the slope check failed; an earlier record, if any, stays"}
    path = write_platform(out, steal.result["host"]["hostname"], backend,
                          preemption_cost_us=figures["switch_cost_us"],
                          preemption_cost_ci_us=figures["switch_cost_ci_us"], slope=figures["slope"],
                          slope_ci=figures["slope_ci"], steal_us=list(settings.steal_us),
                          period_us=settings.period_us, steals=figures["steals_fitted"],
                          source=steal.result["campaign"]["id"])
    return {"file": str(path)}


def worst_machine(*lines: dict) -> dict:
    """The machine line (analysis/measurability.py) of the campaign that could answer least."""
    return max(lines, key=lambda m: ORDER.index(m.get("state", "unchecked")))


def calibrate(spec, raw: dict, out: Path, settings: Settings) -> dict:
    check_backend(spec)
    steal = run_spec(steal_spec(raw, settings), out)
    aa = run_spec(aa_spec(raw, settings), out)
    checks, figures = steal_checks(steal, settings.steal_us)
    platform = record_platform(out, steal, spec.backend.kind, settings, figures, _by_name(checks, SLOPE_CHECK)["ok"])
    aa_part = aa_result(aa, settings)
    checks.append(aa_part.pop("check"))
    row = aa_part["assessment"]
    points = aa_part["mde_per_minute"]["unit"] == "points"
    machine = worst_machine(steal.result["measurability"], aa.result["measurability"])
    return {"backend": spec.backend.kind, "checks": checks,
            "ok": all(c["ok"] for c in checks) and machine["state"] != "cannot", "machine": machine,
            "injected": {"steal_us": list(settings.steal_us), "period_us": settings.period_us, **figures},
            "platform": platform,
            "noise_floor": _scaled(row, "noise_floor", points), "mde": _scaled(row, "mde", points),
            "unit": aa_part["mde_per_minute"]["unit"],
            "aa": aa_part, "campaigns": {"steal": steal.store_path, "aa": aa.store_path}}
