"""`xtalk calibrate`: before a long campaign, can this setup measure what I need?

Two short campaigns on the spec's backend and CPUs, stored like any other:
1. *steal*: the hidden_latency probe next to a host thread at real-time priority that
   steals `steal_us` of the measured CPU every `period_us` (the `steal` host stressor,
   which logs every steal it made), against the same thread stealing nothing (a
   control that only wakes up: its gaps are what one preemption costs the measurer,
   switching out and back, the log line; tens of µs on a nested VM). Checks: the probe
   recovers the number of steals and the total stolen time (gaps between half and twice
   the steal's length, net of such gaps in the control and of one preemption's cost
   each) within TOLERANCE of what the injector logged inside the measured windows, the
   stolen share it adds, and the verdict `interference`.
2. *A/A*: the spec's own measurer alone, `runs` runs, split odd against even runs: the
   verdict must not be `interference`; the spread gives the noise floor and the
   minimum detectable effect of fresh-VM runs and, from windows inside each run, of the
   paired design, both for one minute of measurement per configuration.
Backends whose guests run on another machine (xen: the measured CPU is a pCPU of the
hypervisor, not of this host) are refused: no host thread can steal from them.
"""
from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import scipy.stats
import tomli_w

from .analysis import inference as I
from .analysis.effects import Rules, assess_runs, run_window_s, unit_stats, window_sample
from .analysis.pipeline import Options, analyze
from .analysis.wording import sentence
from .backends.base import backend_class, check_backend_options
from .campaign import run_campaign
from .errors import InfrastructureError, Problem, SpecError
from .preflight import spec_checks
from .spec.load import parse_campaign

TOLERANCE = 0.05
MATCH_S = 3e-4  # a control wake-up's gap ends this soon after it (the clock mapping is late by tens of µs)


@dataclass(frozen=True)
class Settings:
    steal_us: float = 1000.0
    period_us: float = 10000.0
    duration_s: float = 2.0
    runs: int = 5


def check_backend(spec) -> None:
    cls = backend_class(spec.backend.kind)
    if cls is not None and not cls.measures_local_cpus:
        raise SpecError("calibrate", [Problem("backend.kind", (
            f"{spec.backend.kind}: the measured CPU belongs to another machine or hypervisor, so no host thread can "
            "steal from it; measure a known effect there with a cpu_spin stressor on the measurer's CPU "
            "(placement same-core) and the paired design instead"))])


def _base(raw: dict, name: str, settings: Settings, runs: int) -> dict:
    keep = {k: copy.deepcopy(raw[k]) for k in ("backend", "cpus", "housekeeping_cpus") if k in raw}
    run = {k: v for k, v in (raw.get("run") or {}).items() if k in ("sched", "priority", "boot_timeout_s", "grace_s")}
    run.update(duration_s=settings.duration_s, repetitions=runs, start_gap_s=0.2)
    return {"name": name, **keep, "run": run}


def _whole(x: float) -> float | int:
    return int(x) if float(x).is_integer() else x


def steal_spec(raw: dict, settings: Settings) -> dict:
    spec = _base(raw, f"{raw['name']}-calibrate-steal", settings, settings.runs)
    spec["description"] = (f"xtalk calibrate: hidden_latency next to a host thread stealing {settings.steal_us:g} us "
                           f"every {settings.period_us:g} us of the measured CPU, against one that steals nothing")
    spec["measurer"] = {"bench": "hidden_latency"}
    spec["stressors"] = [{"name": "steal", "bench": "steal", "host": True,
                          "params": {"period_us": _whole(settings.period_us)}}]
    steal = _whole(settings.steal_us)
    # the injector first: a real-time measurer started first would starve its start-up
    spec["matrix"] = {"placement": ["same-core"], "start_order": ["stressor-first"],
                      "stressors.steal.params.steal_us": [0, steal]}
    spec["analysis"] = {"baseline": "stressors.steal.params.steal_us=0"}
    return spec


def aa_spec(raw: dict, settings: Settings) -> dict:
    spec = _base(raw, f"{raw['name']}-calibrate-aa", settings, 2 * settings.runs)
    spec["description"] = "xtalk calibrate: the measurer alone, odd runs against even runs (A/A)"
    spec["measurer"] = copy.deepcopy(raw["measurer"])
    return spec


def run_spec(spec: dict, out: Path):
    text = tomli_w.dumps(spec)
    model, raw = parse_campaign(text, spec["name"], check_backend_options, checks=spec_checks())
    result = run_campaign(model, raw, text, spec["name"], out)
    failed = [r for r in result.runs if r["status"] != "pass"]
    if failed:
        raise InfrastructureError(f"calibration campaign {result.store.path.name}: {len(failed)} of "
                                  f"{len(result.runs)} runs did not pass; first: {failed[0]['run_id']}: "
                                  f"{failed[0].get('reason') or failed[0]['status']}")
    return analyze(result.store, Options(evt=False, extras=False))


def _steals(store_path: Path, meta: dict, window_s: float) -> np.ndarray:
    """(start, end) in seconds of the injector's steals inside the run's measured window."""
    log = store_path / "runs" / meta["run_id"] / "console" / "steal.log"
    pairs = [line.split()[1:3] for line in log.read_text(errors="replace").splitlines()
             if line.startswith("STEAL ")] if log.is_file() else []
    t = (np.asarray(pairs, dtype=np.float64).reshape(-1, 2) - float(meta["origin_host_ns"])) / 1e9
    return t[(t[:, 0] >= 0) & (t[:, 1] <= window_s)]


def _gaps(store_path: Path, meta: dict) -> tuple[np.ndarray, np.ndarray]:
    """(when each gap ended, its length), in seconds."""
    path = store_path / "runs" / meta["run_id"] / "samples.parquet"
    if not path.is_file():
        return np.zeros(0), np.zeros(0)
    table = pq.read_table(path, columns=["t_s", "value_ns"])
    return table.column(0).to_numpy(), table.column(1).to_numpy() / 1e9


def _overhead(store_path: Path, controls: list[tuple[dict, float]]) -> float | None:
    """The gap one preemption costs the measurer without any steal: the median gap that
    ends within MATCH_S after each wake-up of the control injector (steal_us=0)."""
    found, wakes = [], 0
    for meta, window in controls:
        end, gap = _gaps(store_path, meta)
        for wake, _ in _steals(store_path, meta, window):
            wakes += 1
            hit = gap[(end >= wake) & (end < wake + MATCH_S)]
            if len(hit):
                found.append(hit.max())
    return float(np.median(found)) if found and len(found) >= wakes / 2 else None


def check(name: str, expected: float, measured: float, unit: str, tolerance: float = TOLERANCE) -> dict:
    ok = bool(expected) and bool(abs(float(measured) / expected - 1) <= tolerance)  # a JSON bool, never numpy's
    return {"name": name, "expected": expected, "measured": measured, "unit": unit, "tolerance": tolerance, "ok": ok}


def steal_checks(analysis, settings: Settings) -> tuple[list[dict], dict]:
    """Checks of the recovered steals against the injector's log, and the figures."""
    store = Path(analysis.store_path)
    s = settings.steal_us / 1e6
    runs: dict[bool, list[tuple[dict, float]]] = {True: [], False: []}
    for meta in analysis.used_runs:
        window, _ = run_window_s(meta, "hidden_latency")
        steal = float((meta.get("config") or {}).get("stressors.steal.params.steal_us", 0)) > 0
        runs[steal].append((meta, window or 0.0))
    overhead = _overhead(store, runs[False]) or 0.0
    lo, hi = s / 2, 2 * s + overhead

    per_run = []

    def band(group):  # (seconds measured, count, sum) of the gaps the size of a steal
        out = np.zeros(3)
        for meta, window in group:
            gap = _gaps(store, meta)[1]
            gap = gap[(gap >= lo) & (gap <= hi)]
            out += (window, len(gap), gap.sum())
            steals = _steals(store, meta, window)
            per_run.append({"run_id": meta["run_id"], "window_s": window, "steals": len(steals),
                            "steal_s": float((steals[:, 1] - steals[:, 0]).sum()), "gaps_in_band": len(gap),
                            "gaps_in_band_s": float(gap.sum())})
        return out

    base, got = band(runs[False]), band(runs[True])
    rate, size = (base[1] / base[0], base[2] / base[1]) if base[0] and base[1] else (0.0, 0.0)
    count = got[1] - rate * got[0]
    stolen = got[2] - rate * got[0] * size - count * overhead
    injected = [r for r in per_run if r["run_id"] in {m["run_id"] for m, _ in runs[True]}]
    exp_n = float(sum(r["steals"] for r in injected))
    exp_s = float(sum(r["steal_s"] for r in injected))
    out = [check("steal count", exp_n, count, "steals"), check("stolen time", exp_s * 1e3, stolen * 1e3, "ms")]
    verdict = next((v for v in analysis.result["verdicts"] if v["metric"] == "hidden_latency"
                    and v["verdict"] != "baseline"), None)
    if verdict is not None and verdict.get("ci95") and got[0]:
        lo_ci, hi_ci = (100 * c for c in verdict["ci95"])
        share = 100 * exp_s / got[0]
        out.append({"name": "stolen share added (95% interval)", "expected": share,
                    "measured": f"{100 * verdict['change']:.3g} [{lo_ci:.3g}, {hi_ci:.3g}]", "unit": "points of the CPU",
                    "ok": bool(lo_ci <= share <= hi_ci)})
    out.append({"name": "verdict of the injected steal", "expected": "interference",
                "measured": verdict["verdict"] if verdict else "none", "unit": "",
                "ok": bool(verdict and verdict["verdict"] == "interference")})
    return out, {"preemption_overhead_us": overhead * 1e6, "measured_s": got[0], "runs": per_run,
                 "verdict": verdict.get("sentence") if verdict else None}


def aa_result(analysis, settings: Settings) -> dict:
    """The A/A check, the noise floor and the minimum detectable effect per minute."""
    from .analysis.verdict import Context
    runs_of: dict[str, list] = {}
    for r in analysis.used_runs:
        runs_of.setdefault(r["config_id"], []).append(r)
    rules = Rules.of(analysis.result.get("spec") or {})
    ctx = Context(analysis.runs_streams, runs_of, analysis.events, analysis.infos, [], rules, None,
                  np.random.default_rng(0))
    (cid,) = runs_of
    metric = sorted(analysis.infos)[0]
    info = analysis.infos[metric]
    stat = info.kind.primary
    units = ctx.run_units(cid, info)
    reps = {m["run_id"]: m.get("repetition", 0) for m in runs_of[cid]}
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
                      "measured": row["verdict"], "unit": "", "ok": row["verdict"] != "different"}}


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
    k = max(I.min_units(alpha), math.ceil(60 / duration_s))
    if len(x) < 2:
        return None
    df = 2 * k - 2
    mde = (scipy.stats.t.ppf(1 - alpha / 2, df) + scipy.stats.t.ppf(I.POWER, df)) * float(x.std(ddof=1)) * \
        math.sqrt(2 / k)
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
    cycles = max(I.min_units(alpha, paired=True), int(60 / (2 * w)))
    df = len(contrasts) - 1
    mde = (scipy.stats.t.ppf(1 - alpha / 2, df) + scipy.stats.t.ppf(I.POWER, df)) * \
        float(np.std(contrasts, ddof=1)) / math.sqrt(cycles)
    return _as_pct(mde, row.get("scale"), row)


def calibrate(spec, raw: dict, out: Path, settings: Settings) -> dict:
    check_backend(spec)
    steal = run_spec(steal_spec(raw, settings), out)
    aa = run_spec(aa_spec(raw, settings), out)
    checks, figures = steal_checks(steal, settings)
    aa_part = aa_result(aa, settings)
    checks.append(aa_part.pop("check"))
    row = aa_part["assessment"]
    points = aa_part["mde_per_minute"]["unit"] == "points"
    return {"backend": spec.backend.kind, "checks": checks, "ok": all(c["ok"] for c in checks),
            "injected": {"steal_us": settings.steal_us, "period_us": settings.period_us,
                         "share_pct": 100 * settings.steal_us / settings.period_us, **figures},
            "noise_floor": _scaled(row, "noise_floor", points), "mde": _scaled(row, "mde", points),
            "unit": aa_part["mde_per_minute"]["unit"],
            "aa": aa_part, "campaigns": {"steal": steal.store_path, "aa": aa.store_path}}
