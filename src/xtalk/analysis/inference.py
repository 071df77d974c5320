"""The inference behind every verdict: how sure a change is, given that the unit of
evidence is a run (a fresh boot) or, in the paired design, an on/off cycle inside a run.

All functions take one number per unit, already on the analysis scale (log of the
statistic for ratio-scale statistics, the statistic itself for shares and rates):
* `permutation_p`: two-sided permutation test of the difference of means over unit
  labels, exact (every relabelling) up to MAX_EXACT arrangements, else Monte Carlo with
  N_RANDOM relabellings and the +1 correction (Phipson & Smyth 2010).
* `signflip_p`: the paired analogue: signs of the per-cycle differences flipped.
* `welch`: difference of means, its standard error and Welch-Satterthwaite df, for the
  confidence interval (t-interval on the unit values: with 3-10 runs a bootstrap over
  runs has too few distinct resamples and under-covers; each run's value already
  carries its within-run sampling error, so the between-run spread is the whole error).
* `floor_and_mde`: the noise floor, the change an A/A comparison of this design stays
  within with probability 1 - alpha, measured from the reference's own units
  (t quantile x their sd x sqrt(1/n_a + 1/n_b); with >= 6 reference units also the
  (1 - alpha) quantile of all balanced A/A splits of them, scaled to this design, and
  the larger of the two), and the minimum detectable effect at POWER.
* `units_needed`: how many units would detect a given change with POWER (power.py holds
  what needs no NumPy: the exact tests' smallest p, the fewest units that reach alpha,
  the t quantile and `detectable`, the formula behind every minimum detectable effect).
* `two_sample_test` / `one_sample_test`: the test a design gets. The exact (or Monte
  Carlo) permutation/sign-flip test where it can reach alpha; where it cannot (4 runs
  against 4: smallest p 0.029), Welch's t-test over the units (one-sample t for paired
  differences), so an effect many times the unit-to-unit spread is decided, not left
  "inconclusive" for a combinatorial reason. The t-test assumes roughly normal unit values
  on the analysis scale; every verdict also needs its interval to exclude no change and
  the change to clear the noise floor, which keeps a skewed run from deciding alone.
Caveats: the t-interval assumes roughly normal unit values on the analysis scale (log
for durations); the paired design treats cycles as independent (adjacent windows cancel
slow drift, not a stressor whose effect differs from boot to boot).
"""
from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass

import numpy as np

from . import student_t
from .power import ALPHA, POWER, detectable, min_p, min_units, t_quantile

MAX_EXACT = 20_000
N_RANDOM = 20_000
MAX_UNITS = 1000
SPLITS = 2000
PERMUTATION_CELLS = 1 << 22  # random relabellings drawn at a time, in units (32 MB of draws)


def _stat(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """|mean(x[mask]) - mean(x[~mask])| for each row of a boolean mask matrix."""
    k = mask.sum(axis=1)
    s_in = mask @ x
    s_out = x.sum() - s_in
    return np.abs(s_in / k - s_out / (len(x) - k))


@functools.lru_cache(maxsize=16)
def every_labelling(n: int, na: int) -> np.ndarray:
    """Every way to choose na of n units, one boolean row each (read-only): built once per
    design, not at every test (8 runs against 8: 12,870 rows, ~11 ms to build)."""
    rows = list(itertools.combinations(range(n), na))
    mask = np.zeros((len(rows), n), bool)
    mask[np.repeat(np.arange(len(rows)), na), np.asarray(rows).ravel()] = True
    mask.flags.writeable = False
    return mask


def permutation_p(a: np.ndarray, b: np.ndarray, rng: np.random.Generator) -> tuple[float | None, bool]:
    """(two-sided p, exact?) of the difference of means of a and b over relabellings."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    na, nb = len(a), len(b)
    if na == 0 or nb == 0:
        return None, True
    x = np.concatenate([a, b])
    observed = abs(a.mean() - b.mean())
    tol = 1e-12 * max(1.0, float(np.abs(x).max()))
    n = na + nb
    if math.comb(n, na) <= MAX_EXACT:
        return float(np.mean(_stat(x, every_labelling(n, na)) >= observed - tol)), True
    hits = 0
    rows = max(1, min(N_RANDOM, PERMUTATION_CELLS // n))
    for start in range(0, N_RANDOM, rows):  # the same draws as one (N_RANDOM, n) call, in bounded memory
        m = min(rows, N_RANDOM - start)
        mask = np.zeros((m, n), bool)
        chosen = np.argpartition(rng.random((m, n)), na - 1, axis=1)[:, :na]  # the na smallest: argsort's set
        mask[np.repeat(np.arange(m), na), chosen.ravel()] = True
        hits += int(np.count_nonzero(_stat(x, mask) >= observed - tol))
    return (hits + 1) / (N_RANDOM + 1), False


def signflip_p(d: np.ndarray, rng: np.random.Generator) -> tuple[float | None, bool]:
    """(two-sided p, exact?) of mean(d) = 0 by flipping the signs of the differences."""
    d = np.asarray(d, float)
    n = len(d)
    if n == 0:
        return None, True
    observed = abs(d.mean())
    tol = 1e-12 * max(1.0, float(np.abs(d).max()))
    if 2 ** n <= 1 << 16:
        signs = 1 - 2 * ((np.arange(2 ** n)[:, None] >> np.arange(n)) & 1)
        return float(np.mean(np.abs(signs @ d) / n >= observed - tol)), True
    signs = rng.choice([-1.0, 1.0], size=(N_RANDOM, n))
    hits = int(np.count_nonzero(np.abs(signs @ d) / n >= observed - tol))
    return (hits + 1) / (N_RANDOM + 1), False


@dataclass(frozen=True)
class Test:
    """A test's outcome: p (None when no test is possible), whether it is exact, its name as
    a sentence says it, and the smallest p it could have given."""

    p: float | None
    exact: bool
    name: str
    min_p: float


def t_p(diff: float, se: float | None, df: float | None) -> float | None:
    """Two-sided p of a t statistic diff/se with df degrees of freedom."""
    if se is None or df is None:
        return None
    if se == 0:
        return 0.0 if diff else 1.0
    return student_t.two_sided_p(diff / se, df)  # 2 x scipy.stats.t.sf(|t|), the same numbers


def two_sample_test(a: np.ndarray, b: np.ndarray, alpha: float, rng: np.random.Generator) -> Test:
    """The permutation test of a against b where it can reach alpha, else Welch's t-test."""
    smallest = min_p(len(a), len(b))
    if smallest < alpha:
        p, exact = permutation_p(a, b, rng)
        return Test(p, exact, "exact permutation test" if exact else "permutation test", smallest)
    diff, se, df = welch(a, b)
    return Test(t_p(diff, se, df), False, "Welch's t-test", 0.0 if se is not None else 1.0)


def one_sample_test(d: np.ndarray, alpha: float, rng: np.random.Generator) -> Test:
    """The sign-flip test of mean(d) = 0 where it can reach alpha, else the one-sample t-test."""
    smallest = min_p(len(d))
    if smallest < alpha:
        p, exact = signflip_p(d, rng)
        return Test(p, exact, "exact sign-flip test" if exact else "sign-flip test", smallest)
    diff, se, df = one_sample(d)
    return Test(t_p(diff, se, df), False, "one-sample t-test", 0.0 if se is not None else 1.0)


def welch(a: np.ndarray, b: np.ndarray) -> tuple[float, float | None, float | None]:
    """(mean(a) - mean(b), its standard error, Welch-Satterthwaite df); se None with < 2
    units on a side."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    diff = float(a.mean() - b.mean())
    if len(a) < 2 or len(b) < 2:
        return diff, None, None
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    se = math.sqrt(va + vb)
    if se == 0:
        return diff, 0.0, float(len(a) + len(b) - 2)
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    return diff, se, float(df)


def one_sample(d: np.ndarray) -> tuple[float, float | None, float | None]:
    """(mean, standard error, df) of paired differences."""
    d = np.asarray(d, float)
    if len(d) < 2:
        return float(d.mean()) if len(d) else 0.0, None, None
    return float(d.mean()), float(d.std(ddof=1) / math.sqrt(len(d))), float(len(d) - 1)


def interval(diff: float, se: float | None, df: float | None, level: float = 0.95) -> tuple[float, float] | None:
    if se is None or df is None:
        return None
    h = float(t_quantile((1 + level) / 2, df)) * se
    return diff - h, diff + h


def aa_split_quantile(ref: np.ndarray, q: float, rng: np.random.Generator) -> tuple[float, int, int] | None:
    """(q-quantile of |mean(half 1) - mean(half 2)| over balanced splits of the reference
    units (all of them, or SPLITS random ones), half sizes); None with < 6 units."""
    ref = np.asarray(ref, float)
    n = len(ref)
    if n < 6:
        return None
    h = n // 2
    if math.comb(n, h) <= 2 * SPLITS:
        rows = np.asarray(list(itertools.combinations(range(n), h)))
    else:
        rows = np.argsort(rng.random((SPLITS, n)), axis=1)[:, :h]
    mask = np.zeros((len(rows), n), bool)
    mask[np.repeat(np.arange(len(rows)), h), rows.ravel()] = True
    diffs = np.abs(mask @ ref / h - (~mask) @ ref / (n - h))
    return float(np.quantile(diffs, q)), h, n - h


def floor_and_mde(ref: np.ndarray, na: int, nb: int, alpha: float = ALPHA, power: float = POWER,
                  rng: np.random.Generator | None = None) -> dict:
    """Noise floor and minimum detectable effect (analysis scale) of na vs nb units, from
    the spread of the reference units `ref` (the baseline's runs, or A/A differences)."""
    ref = np.asarray(ref, float)
    if len(ref) < 2 or na < 1 or nb < 1:
        return {"floor": None, "mde": None, "sd": None, "source": "not measurable: fewer than 2 reference units"}
    sd = float(ref.std(ddof=1))
    df = len(ref) - 1
    scale = math.sqrt(1 / na + 1 / nb)
    t_a = float(t_quantile(1 - alpha / 2, df))
    floor = t_a * sd * scale
    source = f"sd of {len(ref)} reference units"
    split = aa_split_quantile(ref, 1 - alpha, rng or np.random.default_rng(0))
    if split is not None:
        value, h1, h2 = split
        scaled = value * scale / math.sqrt(1 / h1 + 1 / h2)
        if scaled > floor:
            floor, source = scaled, f"A/A splits of {len(ref)} reference units"
    mde = float(detectable(sd, df, alpha, power)) * scale
    return {"floor": floor, "mde": max(mde, floor), "sd": sd, "source": source}


def paired_floor(aa: np.ndarray, d: np.ndarray, alpha: float = ALPHA, power: float = POWER) -> dict:
    """Noise floor and minimum detectable effect of the mean of len(d) paired differences,
    from A/A differences `aa` (off-window against off-windows; the pairs themselves when
    there are fewer than 2 A/A differences)."""
    n = len(d)
    ref, source = (np.asarray(aa, float), f"{len(aa)} off/off differences") if len(aa) >= 2 else \
        (np.asarray(d, float), f"the {len(d)} on/off differences themselves (too few off/off ones)")
    if n < 1 or len(ref) < 2:
        return {"floor": None, "mde": None, "sd": None, "source": "not measurable: fewer than 2 on/off windows"}
    sd = float(ref.std(ddof=1))
    df = len(ref) - 1
    t_a = float(t_quantile(1 - alpha / 2, df))
    floor = t_a * sd / math.sqrt(n)
    mde = float(detectable(sd, df, alpha, power)) / math.sqrt(n)
    return {"floor": floor, "mde": mde, "sd": sd, "source": source}


def units_needed(sd: float | None, effect: float, alpha: float = ALPHA, power: float = POWER,
                 paired: bool = False) -> int | None:
    """Units per side (runs per configuration, or cycles) to detect `effect` with `power`;
    None when more than MAX_UNITS would be needed or the spread is unknown."""
    base = min_units(alpha, paired)
    if sd is None or not math.isfinite(sd):
        return None
    if sd == 0:
        return base
    if effect == 0:
        return None
    lo, hi = max(2, base), MAX_UNITS  # the change it detects shrinks as k grows: the first k that reaches it
    if _detects(sd, hi, alpha, power, paired) > abs(effect):
        return None
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if _detects(sd, mid, alpha, power, paired) <= abs(effect) else (mid + 1, hi)
    return lo


def _detects(sd: float, k: int, alpha: float, power: float, paired: bool) -> float:
    """The change k units per side (k cycles, paired) detect."""
    return detectable(sd, k - 1 if paired else 2 * k - 2, alpha, power) * math.sqrt((1 if paired else 2) / k)
