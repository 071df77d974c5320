"""A configuration against its baseline (default: placement=solo, same other dimensions):
change of mean, median, p99 and WCET in %, percentile-bootstrap confidence intervals,
Mann-Whitney U, and the effect size with a statement in words.

Effect size: the common-language effect size CLES = P(X > Y) + P(X = Y)/2 (X from the
configuration, Y from the baseline; = U / (n1 n2)) and Cliff's delta = 2 CLES - 1, with
Romano et al.'s magnitudes (|d| < 0.147 negligible, < 0.33 small, < 0.474 medium, else
large). Resampling uses at most MAX_N values per side (all values when fewer; else a
random draw from the stored values or the uniform-stride subsample): the test's p-value
and the CIs then describe that draw, not all samples (conservative for the p-value).
Caveat: samples within a run are treated as independent; run-to-run variation and
autocorrelation make the CIs optimistic (see the per-run table). WCET gets no CI: the
bootstrap of a maximum is degenerate.
"""
from __future__ import annotations

import math

import numpy as np
import scipy.stats

from .accum import Stream

MAX_N = 4000
N_BOOT = 1000
ALPHA = 0.01


def sample_of(stream: Stream, rng: np.random.Generator, max_n: int = MAX_N) -> np.ndarray:
    values = stream.exact
    if values is None:
        values = stream.subsample()[1]
    values = values.astype(np.float64)
    if len(values) > max_n:
        values = rng.choice(values, size=max_n, replace=False)
    return values


def effect(a: np.ndarray, b: np.ndarray) -> dict:
    """Mann-Whitney U (two-sided, asymptotic with tie correction) and CLES/Cliff's delta."""
    if len(a) == 0 or len(b) == 0:
        return {"p_value": None, "cles": None, "cliffs_delta": None, "magnitude": None}
    res = scipy.stats.mannwhitneyu(a, b, alternative="two-sided", method="asymptotic")
    cles = float(res.statistic) / (len(a) * len(b))
    delta = 2 * cles - 1
    p = float(res.pvalue)
    return {"u": float(res.statistic), "p_value": None if math.isnan(p) else p, "cles": cles,
            "cliffs_delta": delta, "magnitude": magnitude(delta)}


def magnitude(delta: float) -> str:
    d = abs(delta)
    return "negligible" if d < 0.147 else "small" if d < 0.33 else "medium" if d < 0.474 else "large"


def bootstrap_changes(a: np.ndarray, b: np.ndarray, rng: np.random.Generator,
                      n_boot: int = N_BOOT, level: float = 0.95) -> dict:
    """Percentile-bootstrap CIs of the % change of mean, median and p99 (a vs b)."""
    if len(a) < 2 or len(b) < 2:
        return {}

    def stats(x: np.ndarray) -> np.ndarray:
        res = x[rng.integers(0, len(x), size=(n_boot, len(x)))]
        q = np.quantile(res, [0.5, 0.99], axis=1)
        return np.vstack([res.mean(axis=1), q])

    sa, sb = stats(a), stats(b)
    with np.errstate(divide="ignore", invalid="ignore"):
        change = (sa / sb - 1.0) * 100.0
    lo, hi = (1 - level) / 2 * 100, (1 + level) / 2 * 100
    out = {}
    for i, key in enumerate(("mean", "median", "p99")):
        c = change[i][np.isfinite(change[i])]
        out[key] = [float(np.percentile(c, lo)), float(np.percentile(c, hi))] if len(c) else None
    return out


def pct(value, base) -> float | None:
    if value is None or base is None or base == 0:
        return None
    return (value - base) / base * 100.0


def fmt_p(p: float | None) -> str:
    if p is None:
        return "p=n/a"
    return "p<1e-9" if p < 1e-9 else f"p={p:.2g}"


def statement(label: str, metric: str, unit: str, ratio: float | None, eff: dict) -> str:
    """One sentence a safety engineer can quote."""
    p, cles = eff.get("p_value"), eff.get("cles")
    if ratio is None or cles is None:
        return f"{label}: not enough data to compare {metric}."
    timed = unit != "count"
    more, less = ("slower", "faster") if timed else ("higher", "lower")
    if p is None or p >= ALPHA or eff["magnitude"] == "negligible":
        return (f"{label}: no significant difference in {metric} (median x{ratio:.3f}, "
                f"Cliff's delta {eff['cliffs_delta']:+.2f} {eff['magnitude']}, {fmt_p(p)}).")
    if ratio >= 1:
        word, factor, share = more, ratio, cles
    else:
        word, factor, share = less, 1 / ratio if ratio > 0 else math.inf, 1 - cles
    return (f"{label} makes {metric} {factor:.2f}x {word} (median); {word} in {share * 100:.0f}% of "
            f"sample pairs (Cliff's delta {eff['cliffs_delta']:+.2f}, {eff['magnitude']}), {fmt_p(p)}.")


def compare(stream: Stream, base: Stream, row: dict, base_row: dict, unit: str, label: str,
            rng: np.random.Generator) -> dict:
    a, b = sample_of(stream, rng), sample_of(base, rng)
    eff = effect(a, b)
    ratio = row["median"] / base_row["median"] if base_row.get("median") else None
    out = {
        "change_pct": {k: pct(row.get(k), base_row.get(k)) for k in ("mean", "median", "p99", "wcet")},
        "ci95_pct": bootstrap_changes(a, b, rng),
        "ratio_median": ratio, "n_resampled": [len(a), len(b)], **eff,
    }
    out["statement"] = statement(label, row["metric"], unit, ratio, eff)
    out["significant"] = bool(eff.get("p_value") is not None and eff["p_value"] < ALPHA
                              and eff["magnitude"] != "negligible")
    return out
