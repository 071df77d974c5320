"""Probabilistic WCET (pWCET) by extreme-value theory, refused with reasons when the
data does not support it.

Block maxima (primary): maxima of blocks of B consecutive samples within each run (B a
power of two, about n/MAX_BLOCKS, at least MIN_BLOCK) are fitted by a GEV (maximum
likelihood, scipy.stats.genextreme; the shape reported as xi = -c, xi > 0 heavy tail).
Peaks over threshold (second estimate): the K largest samples (K = 2% of n, 100..4000),
excesses over the threshold fitted by a GPD with location 0.
pWCET(p) is the value exceeded by one sample with probability p:
GEV G^-1((1-p)^B); POT u + GPD^-1(1 - p/zeta)  (computed with isf for precision), zeta = K/n.
Checks, each at ALPHA, on the series the model assumes i.i.d. (block maxima in time
order; exceedances in time order): Ljung-Box (lags up to 10) and a Wald-Wolfowitz runs
test for independence, two-sample KS of first vs second half for identical distribution;
for POT also a KS test that the exceedances' positions are uniform over the runs;
goodness of fit: KS against the fitted distribution (parameters estimated from the same
data, so the p-value is lenient) and the Anderson-Darling statistic A^2 (reported).
Not applicable: a metric that is not a time (a count, a rate in its own unit) or whose
worst is its lowest value (throughput): it has no execution time to bound.
Refused: fewer than MIN_N samples or MIN_BLOCKS maxima, a failed check, xi >= 1 (no
finite mean), or a fit that does not converge. Caveat: block maxima over pooled runs
assume the runs are repetitions of one distribution (the KS halves test probes that).
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import scipy.stats as st

from .accum import Stream
from .kinds import MetricInfo
from .wording import in_ticks

ALPHA = 0.01
MIN_N = 1000
MIN_BLOCK = 16
MIN_BLOCKS = 50
MAX_BLOCKS = 500
PROBS = (1e-3, 1e-6, 1e-9)
CURVE = np.logspace(-1, -12, 45)


def ljung_box(x: np.ndarray, lags: int = 10) -> float:
    n = len(x)
    h = max(1, min(lags, n // 5))
    d = x - x.mean()
    den = float(d @ d)
    if den == 0:
        return 0.0  # a constant series: its "independence" cannot be assessed
    r = np.array([float(d[k:] @ d[:-k]) / den for k in range(1, h + 1)])
    q = n * (n + 2) * float(np.sum(r * r / (n - np.arange(1, h + 1))))
    return float(st.chi2.sf(q, h))


def runs_test(x: np.ndarray) -> float:
    """Wald-Wolfowitz runs test above/below the median (values equal to it dropped)."""
    med = np.median(x)
    s = x[x != med] > med
    n1, n2 = int(s.sum()), int((~s).sum())
    if n1 == 0 or n2 == 0:
        return 0.0
    runs = 1 + int(np.count_nonzero(s[1:] != s[:-1]))
    n = n1 + n2
    mu = 2 * n1 * n2 / n + 1
    var = 2 * n1 * n2 * (2 * n1 * n2 - n) / (n * n * (n - 1))
    if var <= 0:
        return 1.0
    return float(2 * st.norm.sf(abs(runs - mu) / math.sqrt(var)))


def iid_checks(x: np.ndarray) -> dict:
    x = np.asarray(x, dtype=np.float64)
    half = len(x) // 2
    out = {"ljung_box_p": ljung_box(x), "runs_p": runs_test(x),
           "ks_halves_p": float(st.ks_2samp(x[:half], x[half:]).pvalue) if half >= 5 else None}
    reasons = []
    if out["ljung_box_p"] < ALPHA:
        reasons.append(f"not independent: Ljung-Box p={out['ljung_box_p']:.2g} < {ALPHA}")
    if out["runs_p"] < ALPHA:
        reasons.append(f"not independent: runs test p={out['runs_p']:.2g} < {ALPHA}")
    if out["ks_halves_p"] is not None and out["ks_halves_p"] < ALPHA:
        reasons.append(f"not identically distributed: KS first vs second half p={out['ks_halves_p']:.2g} < {ALPHA}")
    out["reasons"] = reasons
    return out


def anderson_darling(x: np.ndarray, cdf) -> float:
    z = np.clip(np.sort(cdf(x)), 1e-300, 1 - 1e-16)
    n = len(z)
    i = np.arange(1, n + 1)
    return float(-n - np.mean((2 * i - 1) * (np.log(z) + np.log1p(-z[::-1]))))


def _gof(x: np.ndarray, dist) -> dict:
    ks = st.kstest(x, dist.cdf)
    return {"ks_p": float(ks.pvalue), "ad_a2": anderson_darling(x, dist.cdf)}


def block_size(n: int) -> int:
    target = max(MIN_BLOCK, n // MAX_BLOCKS)
    return 1 << math.ceil(math.log2(target))


def fit_gev(runs: list[Stream]) -> dict:
    n = sum(s.n for s in runs)
    block = max([block_size(n)] + [s.micro for s in runs])
    maxima = np.concatenate([s.block_maxima(block) for s in runs]).astype(np.float64)
    out = {"method": "GEV block maxima", "block": block, "n_fit": len(maxima), "status": "refused", "reasons": []}
    if len(maxima) < MIN_BLOCKS:
        out["reasons"].append(f"too few block maxima: {len(maxima)} < {MIN_BLOCKS} (blocks of {block})")
        return out
    out["iid"] = iid_checks(maxima)
    out["reasons"] += out["iid"]["reasons"]
    scale0 = float(maxima.std()) or 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c, loc, scale = st.genextreme.fit((maxima - maxima.mean()) / scale0)
    loc, scale = loc * scale0 + float(maxima.mean()), scale * scale0
    if not all(map(math.isfinite, (c, loc, scale))) or scale <= 0:
        out["reasons"].append("GEV fit did not converge")
        return out
    dist = st.genextreme(c, loc=loc, scale=scale)
    out.update(xi=-float(c), loc=float(loc), scale=float(scale), gof=_gof(maxima, dist))
    if out["gof"]["ks_p"] < ALPHA:
        out["reasons"].append(f"GEV does not fit the block maxima: KS p={out['gof']['ks_p']:.2g}")
    if out["xi"] >= 1:
        out["reasons"].append(f"tail too heavy: xi={out['xi']:.2f} >= 1 (no finite mean)")
    with np.errstate(all="ignore"):
        out["pwcet"] = {str(p): float(dist.isf(-math.expm1(block * math.log1p(-p)))) for p in PROBS}
        out["curve"] = [[float(p), float(dist.isf(-math.expm1(block * math.log1p(-p))))] for p in CURVE]
    if not out["reasons"]:
        out["status"] = "ok"
    return out


def fit_pot(pooled: Stream, runs: list[Stream]) -> dict:
    n = pooled.n
    k = int(min(4000, max(100, 0.02 * n), n // 10))
    out = {"method": "GPD peaks over threshold", "n_fit": k, "status": "refused", "reasons": []}
    tv, ti, _ = pooled.top
    if k < 100 or len(tv) < k:
        out["reasons"].append(f"too few samples for peaks over threshold: n={n}")
        return out
    order = np.argsort(tv)[::-1][:k + 1]
    u = float(tv[order[k]])
    sel = order[:k]
    # time order: by run, then position within the run
    run_idx = pooled.top_run[sel] if pooled.top_run is not None else np.zeros(k, np.int64)
    seq = np.lexsort((ti[sel], run_idx))
    excess = tv[sel][seq].astype(np.float64) - u
    out["threshold"] = u
    out["iid"] = iid_checks(excess)
    out["reasons"] += out["iid"]["reasons"]
    # i.i.d. samples exceed a threshold at uniformly spread positions (a Poisson process)
    sizes = np.array([s.n for s in runs], dtype=np.float64)
    where = (ti[sel] + 0.5) / sizes[run_idx] if len(sizes) == len(pooled.runs) else None
    if where is not None:
        p_uniform = float(st.kstest(where, "uniform").pvalue)
        out["iid"]["exceedance_times_p"] = p_uniform
        if p_uniform < ALPHA:
            out["reasons"].append(f"exceedances not spread uniformly over the runs (trend or clusters): "
                                  f"KS p={p_uniform:.2g} < {ALPHA}")
    if np.all(excess == excess[0]):
        out["reasons"].append("all exceedances equal: no tail to fit")
        return out
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c, _, scale = st.genpareto.fit(excess, floc=0)
    if not math.isfinite(c) or not math.isfinite(scale) or scale <= 0:
        out["reasons"].append("GPD fit did not converge")
        return out
    dist = st.genpareto(c, loc=0, scale=scale)
    zeta = k / n
    out.update(xi=float(c), scale=float(scale), zeta=zeta, gof=_gof(excess, dist))
    if out["gof"]["ks_p"] < ALPHA:
        out["reasons"].append(f"GPD does not fit the exceedances: KS p={out['gof']['ks_p']:.2g}")
    if c >= 1:
        out["reasons"].append(f"tail too heavy: xi={c:.2f} >= 1 (no finite mean)")
    with np.errstate(all="ignore"):
        out["pwcet"] = {str(p): float(u + dist.isf(p / zeta)) for p in PROBS if p < zeta}
        out["curve"] = [[float(p), float(u + dist.isf(p / zeta))] for p in CURVE if p < zeta]
    if not out["reasons"]:
        out["status"] = "ok"
    return out


def not_applicable(info: MetricInfo) -> str | None:
    """Why a metric has no pWCET: a WCET is the largest time a sample took, so a count or a
    rate (its own unit) or a metric whose worst is its lowest value (throughput) has none."""
    if not in_ticks(info.unit):
        return f"not a time: {info.name} is in {info.unit} (no execution time to bound)"
    if info.kind.better == "higher":
        return f"a {info.kind.name} metric: its worst case is its lowest value, not a longest time"
    return None


def pwcet(pooled: Stream, runs: list[Stream], info: MetricInfo) -> dict:
    """GEV and POT estimates for one configuration; `best` is the first that passed; status
    'not applicable' with the reason for a metric that has no WCET."""
    why = not_applicable(info)
    if why:
        return {"status": "not applicable", "reasons": [why], "gev": None, "pot": None, "best": None}
    if pooled.n < MIN_N:
        why = f"too few samples: n={pooled.n} < {MIN_N}"
        return {"status": "refused", "reasons": [why], "gev": None, "pot": None, "best": None}
    gev, pot = fit_gev(runs), fit_pot(pooled, runs)
    best = "gev" if gev["status"] == "ok" else "pot" if pot["status"] == "ok" else None
    reasons = [] if best else [f"GEV: {r}" for r in gev["reasons"]] + [f"POT: {r}" for r in pot["reasons"]]
    return {"status": "ok" if best else "refused", "reasons": reasons, "gev": gev, "pot": pot, "best": best,
            "pwcet": (gev if best == "gev" else pot)["pwcet"] if best else None}
