"""The steal part of `xtalk calibrate`: what the measurer saw of each injected steal.

Every steal the injector logged inside a run's measured window (console/steal.log) is
first put on the probe's time axis (the run's lag, below), then matched to the
measurer's gap that covers it: the longest gap that begins at most
MATCH_S before the steal's start and ends within MATCH_S of its end (before it too: the
lag is known to tens of µs, the switches included), if it is at
least half as long as the steal (a shorter one is another, smaller interruption: the
probe missed the steal; one that began earlier or ended later holds something else too,
another task that ran before the measurer). Measured gap length against
injected length, per steal, over every steal of every length, is fitted by least
squares: gap = slope x steal + intercept. A gap is the steal plus the switches to the
stealing thread and back, so the slope checks the measurement (1 when the probe's clock
and gap detection are right) and the intercept is this host's cost of one preemption on
this backend: real time the measurer lost, a fact of the platform, not a measuring
error. Hence two lengths or more: with one, the switch cost and a scale error of the
measurement cannot be told apart (a total stolen time 5 % over the injected one could be
either: the check of the total stolen time that the slope replaced failed natively with
300 µs steals, +5.3 %, all of it switches of about 16 µs each).
The lag: the log is in host time and the gaps in guest counter time mapped to host time
by the run's clock pairs (results/finalize.py), whose offset is late by however stale the
freshest pair was: the host reads the ring's heartbeat every runner.POLL_S (10 ms, the
injector's period too), and the two periods nearly lock, so that on an AMD EPYC host
every gap of a run came 0.15-0.3 ms after its steal, as much as MATCH_S and more (up to
all of a run's 300 µs steals missed). So each run's steals are shifted by its lag, the
median of how far the middle of the nearest gap at least half a steal long lies from
each steal's middle (within half the spacing of the steals, so never the neighbour's),
and the lag is reported per run (`lag_us`): how far that run's time axis is off.

Checks: per length, the steals the probe saw (a covering gap) against the steals
logged; over all lengths, the slope within TOLERANCE of 1; for the longest length, the
stolen share it adds over the control that only wakes up (its 95 % interval must hold the
injected share: the control's wake-ups carry the same switches, so they cancel; time is
not stolen twice, so where the host already takes a share N of the CPU in the control,
the steals that land on it add nothing and the share added is injected x (1 - N)) and its
verdict `interference`: the end-to-end check that the analysis flags a known effect.
Each check's `status` says what its outcome means: `recovered` (then `ok`), or how it was
missed: an interval that holds the injected share but also zero is `not separated from
zero`, not recovered (the steal could not be told from nothing).
The shorter lengths are there for the fit: whether an effect as small as theirs shows
with this many runs is what the A/A part's noise floor and minimum detectable effect
answer, and an interval per length would add a 5 % false alarm each.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import scipy.stats

from ..analysis.effects import run_window_s
from ..analysis.wording import short

TOLERANCE = 0.05
MATCH_S = 3e-4  # a steal's gap begins and ends this close to it: the switches, the error of the run's lag (tens of µs)
STEAL_US = "stressors.steal.params.steal_us"
SLOPE_CHECK = "slope of measured against injected"
RECOVERED = "recovered"  # a check's status where what was measured agrees with what was injected


@dataclass(frozen=True)
class Fit:
    """Measured gap = slope x injected length + intercept, with 95 % intervals; seconds."""

    slope: float
    slope_ci: tuple[float, float]
    intercept_s: float
    intercept_ci_s: tuple[float, float]
    steals: int


def logged_steals(log_text: str, origin_ns: float, window_s: float) -> np.ndarray:
    """(start, end) in seconds on the run's time axis of the steals the injector logged
    (`STEAL start_ns end_ns` lines) inside the measured window [0, window_s]."""
    pairs = [line.split()[1:3] for line in log_text.splitlines() if line.startswith("STEAL ")]
    t = (np.asarray(pairs, dtype=np.float64).reshape(-1, 2) - float(origin_ns)) / 1e9
    return t[(t[:, 0] >= 0) & (t[:, 1] <= window_s)]


def run_lag(steals: np.ndarray, gap_end: np.ndarray, gap_len: np.ndarray) -> float:
    """How much later the probe's time axis puts the steals than the log does, seconds
    (module docstring); 0 when fewer than three steals have a gap near enough."""
    if len(steals) < 3:
        return 0.0
    middle = (steals[:, 0] + steals[:, 1]) / 2
    reach = float(np.min(np.diff(np.sort(middle)))) / 2
    long = gap_len >= float(np.min(steals[:, 1] - steals[:, 0])) / 2
    gaps = np.sort(gap_end[long] - gap_len[long] / 2)
    if not len(gaps):
        return 0.0
    at = np.searchsorted(gaps, middle)
    before, after = gaps[np.maximum(at - 1, 0)], gaps[np.minimum(at, len(gaps) - 1)]
    nearest = np.where(abs(before - middle) <= abs(after - middle), before, after)
    lags = (nearest - middle)[abs(nearest - middle) < reach]
    return float(np.median(lags)) if len(lags) >= 3 else 0.0


def covering_gaps(steals: np.ndarray, gap_end: np.ndarray, gap_len: np.ndarray) -> np.ndarray:
    """The length of the gap covering each steal (module docstring), NaN where none does."""
    order = np.argsort(gap_end, kind="stable")
    end, length = gap_end[order], gap_len[order]
    first = np.searchsorted(end, steals[:, 1] - MATCH_S, "left")
    last = np.searchsorted(end, steals[:, 1] + MATCH_S, "left")
    out = np.full(len(steals), np.nan)
    for i, (a, b) in enumerate(zip(first, last)):
        start, stop = steals[i]
        candidates = length[a:b][end[a:b] - length[a:b] >= start - MATCH_S]
        if len(candidates) and (longest := candidates.max()) >= (stop - start) / 2:
            out[i] = longest
    return out


def fit_gaps(injected_s: np.ndarray, measured_s: np.ndarray) -> Fit:
    """Least squares of measured against injected length; the caller gives two lengths or more."""
    r = scipy.stats.linregress(injected_s, measured_s)
    t = float(scipy.stats.t.ppf(0.975, len(injected_s) - 2))
    return Fit(float(r.slope), (float(r.slope - t * r.stderr), float(r.slope + t * r.stderr)),
               float(r.intercept), (float(r.intercept - t * r.intercept_stderr),
                                    float(r.intercept + t * r.intercept_stderr)), len(injected_s))


def check(name: str, expected: float, measured: float, unit: str, tolerance: float = TOLERANCE,
          missed: str = "missed") -> dict:
    """A measured figure against the injected one, within `tolerance`; its status says
    what that means: recovered, or `missed`."""
    ok = bool(expected) and bool(abs(float(measured) / expected - 1) <= tolerance)  # a JSON bool, never numpy's
    return {"name": name, "expected": expected, "measured": measured, "unit": unit, "tolerance": tolerance, "ok": ok,
            "status": RECOVERED if ok else missed}


def slope_check(fit: Fit | None) -> dict:
    if fit is None:
        return {"name": SLOPE_CHECK, "expected": 1.0, "measured": "no fit: fewer than two lengths seen", "unit": "",
                "tolerance": TOLERANCE, "ok": False, "status": "no fit"}
    return check(SLOPE_CHECK, 1.0, fit.slope, "", missed=f"off scale (not within {TOLERANCE:.0%} of 1)")


def _run_steals(store: Path, meta: dict, window_s: float) -> np.ndarray:
    log = store / "runs" / meta["run_id"] / "console" / "steal.log"
    return logged_steals(log.read_text(errors="replace") if log.is_file() else "", meta["origin_host_ns"], window_s)


def _run_gaps(store: Path, meta: dict) -> tuple[np.ndarray, np.ndarray]:
    """(when each gap ended, its length), in seconds."""
    path = store / "runs" / meta["run_id"] / "samples.parquet"
    if not path.is_file():
        return np.zeros(0), np.zeros(0)
    table = pq.read_table(path, columns=["t_s", "value_ns"])
    return table.column(0).to_numpy(), table.column(1).to_numpy() / 1e9


def steal_gaps(store: Path, meta: dict, window_s: float) -> tuple[np.ndarray, np.ndarray, float]:
    """One run's logged steals inside its measured window ((start, end) on the run's time axis,
    s), the length of the probe's gap covering each (NaN where none does) and the run's lag (s)."""
    steals, probe = _run_steals(store, meta, window_s), _run_gaps(store, meta)
    lag = run_lag(steals, *probe)
    return steals, covering_gaps(steals + lag, *probe), lag


@dataclass
class Length:
    """What the runs of one injected length gave; per seen steal its length and its gap's (s)."""

    steal_us: float
    measured_s: float = 0.0
    steals: int = 0
    stolen_s: float = 0.0
    injected: list[float] = field(default_factory=list)
    gaps: list[float] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"{self.steal_us:g} µs"

    def add(self, window_s: float, steals: np.ndarray, gaps: np.ndarray) -> None:
        seen = ~np.isnan(gaps)
        self.measured_s += window_s
        self.steals += len(steals)
        self.stolen_s += float((steals[:, 1] - steals[:, 0]).sum())
        self.injected += list(steals[seen, 1] - steals[seen, 0])
        self.gaps += list(gaps[seen])


def _lengths(store: Path, analysis, lengths: tuple[float, ...]) -> tuple[dict[float, Length], list[dict]]:
    of = {steal_us: Length(steal_us) for steal_us in lengths}
    runs = []
    for meta in analysis.used_runs:
        steal_us = float((meta.get("config") or {}).get(STEAL_US, 0))
        if steal_us not in of:
            continue
        window = run_window_s(meta, "hidden_latency")[0] or 0.0
        steals, gaps, lag = steal_gaps(store, meta, window)
        of[steal_us].add(window, steals, gaps)
        runs.append({"run_id": meta["run_id"], "steal_us": steal_us, "window_s": window, "steals": len(steals),
                     "seen": int((~np.isnan(gaps)).sum()), "lag_us": lag * 1e6})
    return of, runs


def _verdict_of(analysis, steal_us: float) -> dict | None:
    return next((v for v in analysis.result["verdicts"] if v["metric"] == "hidden_latency"
                 and v["verdict"] != "baseline"
                 and float((v.get("config") or {}).get(STEAL_US, -1)) == steal_us), None)


def share_status(share: float, lo: float, hi: float) -> str:
    """The injected share against the measured 95 % interval: recovered only where the
    interval holds it and excludes no change (an interval that also holds zero could not
    tell the steal from nothing)."""
    if not lo <= share <= hi:
        return "missed (outside the interval)"
    return RECOVERED if lo > 0 or hi < 0 else "not separated from zero"


def _share_and_verdict(one: Length, verdict: dict | None) -> list[dict]:
    out = []
    if verdict is not None and verdict.get("ci95") and one.measured_s:
        lo, hi = (100 * c for c in verdict["ci95"])
        share = 100 * one.stolen_s / one.measured_s * (1 - (verdict.get("reference_value") or 0.0))
        out.append({"name": f"stolen share added, {one.label} (95% interval)", "expected": share,
                    "measured": f"{100 * verdict['change']:.3g} [{lo:.3g}, {hi:.3g}]", "unit": "points of the CPU",
                    "ok": share_status(share, lo, hi) == RECOVERED, "status": share_status(share, lo, hi)})
    found = bool(verdict and verdict["verdict"] == "interference")
    out.append({"name": f"verdict of the {one.label} steal", "expected": "interference",
                "measured": verdict["verdict"] if verdict else "none", "unit": "", "ok": found,
                "status": RECOVERED if found else f"missed: {verdict['verdict'] if verdict else 'no verdict'}",
                "reason": None if found or not verdict else short(verdict)})
    return out


def _fit_figures(fit: Fit | None) -> dict:
    if fit is None:
        return {"switch_cost_us": None, "switch_cost_ci_us": None, "slope": None, "slope_ci": None,
                "steals_fitted": 0}
    return {"switch_cost_us": fit.intercept_s * 1e6, "switch_cost_ci_us": [c * 1e6 for c in fit.intercept_ci_s],
            "slope": fit.slope, "slope_ci": list(fit.slope_ci), "steals_fitted": fit.steals}


def steal_checks(analysis, lengths: tuple[float, ...]) -> tuple[list[dict], dict]:
    """The checks (module docstring), and the figures: the fit, per length and per run the counts."""
    of, runs = _lengths(Path(analysis.store_path), analysis, lengths)
    seen = [one for one in of.values() if one.gaps]
    fit = fit_gaps(np.concatenate([one.injected for one in seen]), np.concatenate([one.gaps for one in seen])) \
        if len(seen) >= 2 else None
    verdicts = {one.steal_us: _verdict_of(analysis, one.steal_us) for one in of.values()}
    checks = [check(f"steals seen ({one.label})", float(one.steals), float(len(one.gaps)), "steals")
              for one in of.values()]
    checks.append(slope_check(fit))
    longest = of[max(of)]
    checks += _share_and_verdict(longest, verdicts[longest.steal_us])
    per_length = [{"steal_us": one.steal_us, "steals": one.steals, "seen": len(one.gaps), "measured_s": one.measured_s,
                   "stolen_s": one.stolen_s, "verdict": (verdicts[one.steal_us] or {}).get("sentence")}
                  for one in of.values()]
    return checks, {**_fit_figures(fit), "lengths": per_length, "runs": runs}
