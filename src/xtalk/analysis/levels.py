"""The campaign as a level of the design (campaign -> run -> sample), for comparisons
across campaigns and boots (Kalibera & Jones, "Rigorous Benchmarking in Reasonable
Time", ISMM 2013: variance at every level that is repeated, repetitions counted at the
highest level that varies).

Runs inside one campaign share the host's state of the moment (memory layout, the
machine's own neighbours, clock and cache state); the next campaign does not. Two
campaigns of one spec can differ by more than their runs differ inside each, so a
comparison of campaigns (hypervisor A against B: they cannot run in one boot) counts
that level:
* a campaign's value of a statistic is the mean of its runs' values on the analysis
  scale (log for ratios);
* a side's drift (the variance of one campaign's value, with its degrees of freedom) is
  the sample variance of the campaign values in its replicate group: the side's own
  campaigns and the other stored campaigns of the same spec on the same host (siblings),
  never the other side's. A drifted campaign widens its own side's spread instead of
  being judged against quiet siblings alone;
* B against A: the difference of the sides' mean campaign values; standard error
  sqrt(V_A/k_A + V_B/k_B) (a side without two replicates borrows the other's V; each V
  already holds the run-to-run spread of a campaign's mean); Welch-Satterthwaite df (the smaller df
  where both groups share campaigns or V is borrowed); t-test and t-interval; noise floor
  t(1 - alpha/2, df) x se, the difference an A/A of this design stays within;
* where neither side has two replicates the drift is unknown: the runs are compared
  (effects.assess_runs) and a difference is called only where its whole 95% interval
  lies beyond the drift assumed in its place ([analysis] drift_pct / drift_points); the
  sentence says it was not measured.
Caveats: campaign values count alike whatever their number of runs (campaigns of one
spec have the same); the t-test assumes roughly normal campaign values on the analysis
scale; with few replicates (df 1-3) the test is conservative and the interval wide,
which is the honest answer (docs/analysis.md says how many campaigns to run).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from . import inference, power
from .effects import Rules, assess_runs, assessment, typical
from .kinds import Stat, to_pct, transform
from .wording import num


@dataclass(frozen=True)
class Side:
    """One side of a comparison: per campaign, its runs' values of the statistic; and the
    sibling campaigns (same spec, same host, not compared) that measure its drift."""

    campaigns: list[list[float | None]]
    siblings: list[list[float | None]] = field(default_factory=list)

    def runs(self) -> list[float]:
        return [v for c in self.campaigns for v in c if v is not None]


@dataclass(frozen=True)
class Drift:
    """The variance of one campaign's value around its side's mean (analysis scale), its
    degrees of freedom and the campaigns it comes from."""

    var: float
    df: int
    campaigns: int


def on_scale(values: list[float], scale: str) -> np.ndarray:
    v = np.asarray(values, dtype=np.float64)
    return np.log(v) if scale == "log" else v


def drift_of(groups: list[list[float]], scale: str) -> Drift | None:
    """The drift of a replicate group (each campaign's run values); None under 2 campaigns."""
    values = [float(on_scale(c, scale).mean()) for c in groups if c]
    if len(values) < 2:
        return None
    return Drift(float(np.var(values, ddof=1)), len(values) - 1, len(values))


def assess_sides(stat: Stat, b: Side, a: Side, rules: Rules, rng: np.random.Generator,
                 labels: tuple[str, str, str], shared_siblings: bool = False) -> dict:
    """B's campaigns against A's: the campaign-level assessment where a drift is measured,
    else the run-level one under the assumed drift. `shared_siblings`: the two sides'
    replicate groups share campaigns (both sides of one spec)."""
    groups_a = [_present(c) for c in a.campaigns + a.siblings if _present(c)]
    groups_b = [_present(c) for c in b.campaigns + b.siblings if _present(c)]
    if not a.runs() or not b.runs():
        return assess_runs(stat, b.runs(), a.runs(), rules, rng, labels)
    _, scale = transform([v for c in groups_a + groups_b for v in c], stat)
    drift_a, drift_b = drift_of(groups_a, scale), drift_of(groups_b, scale)
    if drift_a is None and drift_b is None:
        row = unmeasured_drift(stat, b.runs(), a.runs(), rules, rng, labels)
    else:
        row = _campaign_level(stat, b, a, drift_b, drift_a, scale, rules, labels, shared_siblings)
    row["campaign_values"] = {"b": [typical(c, scale) for c in map(_present, b.campaigns)],
                              "a": [typical(c, scale) for c in map(_present, a.campaigns)],
                              "siblings_b": [typical(c, scale) for c in map(_present, b.siblings)],
                              "siblings_a": [typical(c, scale) for c in map(_present, a.siblings)]}
    return row


def _present(values: list[float | None]) -> list[float]:
    return [v for v in values if v is not None]


def _campaign_level(stat: Stat, b: Side, a: Side, drift_b: Drift | None, drift_a: Drift | None, scale: str,
                    rules: Rules, labels: tuple[str, str, str], shared: bool) -> dict:
    cb = [float(on_scale(c, scale).mean()) for c in map(_present, b.campaigns) if c]
    ca = [float(on_scale(c, scale).mean()) for c in map(_present, a.campaigns) if c]
    borrowed = drift_a is None or drift_b is None
    drift_a, drift_b = drift_a or drift_b, drift_b or drift_a
    wa, wb = drift_a.var / len(ca), drift_b.var / len(cb)
    se = math.sqrt(wa + wb)
    if shared or borrowed or wa + wb == 0:
        df = float(min(drift_a.df, drift_b.df))
    else:
        df = (wa + wb) ** 2 / (wa ** 2 / drift_a.df + wb ** 2 / drift_b.df)
    diff = float(np.mean(cb) - np.mean(ca))
    test = inference.Test(inference.t_p(diff, se, df), False, "t-test over campaigns", 0.0)
    t_alpha = float(power.t_quantile(1 - rules.alpha / 2, df))
    sd = math.sqrt((drift_a.var + drift_b.var) / 2)
    fl = {"floor": t_alpha * se, "mde": float(power.detectable(se, df, rules.alpha)), "sd": sd,
          "source": f"drift between campaigns from {_groups_text(drift_a, drift_b, shared, borrowed)}"}
    back = (lambda m: float(np.exp(m))) if scale == "log" else float
    values = (back(np.mean(cb)), back(np.mean(ca)))
    row = assessment(stat, scale, diff, se, df, test, fl, (len(cb), len(ca)), values, rules, labels, sd,
                     paired=False, units="campaigns")
    sd_text = _size_text(stat, scale, sd, values[1])
    row.update(level="campaigns", runs=[len(b.runs()), len(a.runs())],
               drift={"measured": True, "sd": sd, "sd_text": sd_text, "df": df,
                      "campaigns": [drift_b.campaigns, drift_a.campaigns], "borrowed": borrowed,
                      "text": f"drift between campaigns ±{sd_text} (sd of a campaign) from "
                              f"{_groups_text(drift_a, drift_b, shared, borrowed)}; the interval covers it"})
    return row


def _groups_text(drift_a: Drift, drift_b: Drift, shared: bool, borrowed: bool) -> str:
    if shared or borrowed:
        n = max(drift_a.campaigns, drift_b.campaigns)
        return f"{n} replicate campaigns" + (" of one side" if borrowed else "")
    return f"{drift_a.campaigns} + {drift_b.campaigns} replicate campaigns"  # A's first: the argument order


def _size_text(stat: Stat, scale: str, delta: float, ref: float | None) -> str:
    """A spread on the analysis scale as a person reads it: % for ratios, points for shares."""
    if scale == "diff" and stat.unit in ("share", "fraction"):
        return f"{num(delta * 100)} points"
    pct = to_pct(delta, scale, ref)
    return f"{num(pct)} %" if pct is not None else num(delta)


def unmeasured_drift(stat: Stat, b_runs: list[float], a_runs: list[float], rules: Rules,
                     rng: np.random.Generator, labels: tuple[str, str, str]) -> dict:
    """Runs against runs, with the drift between campaigns assumed, not measured: a
    difference is called only where its whole 95% interval lies beyond that drift."""
    row = assess_runs(stat, b_runs, a_runs, rules, rng, labels)
    x, scale = transform(b_runs + a_runs, stat)
    diff, se, df = inference.welch(x[:len(b_runs)], x[len(b_runs):])
    ci = inference.interval(diff, se, df)
    allowance = rules.drift_margin(stat, scale, row.get("reference_value"))
    text = _size_text(stat, scale, allowance, row.get("reference_value")) if allowance is not None else "unknown"
    row.update(level="runs", drift={"measured": False, "assumed": allowance, "text":
                                    f"drift between campaigns not measured, assumed within ±{text}; the interval "
                                    "covers these campaigns' runs, not the drift between boots"})
    beyond = ci is not None and allowance is not None and (ci[0] > allowance or ci[1] < -allowance)
    if row["verdict"] == labels[0] and not beyond:
        row.update(verdict=labels[2], need_units=None, reason=(
            f"{row['reason']}; but the drift between campaigns on this host is not measured and a difference "
            f"this size could be it (the 95% interval reaches inside the ±{text} assumed, [analysis] "
            "drift_pct / drift_points): compare 2 or more campaigns a side, or keep earlier campaigns of the "
            "same spec on this host in the results directory"))
    return row
