"""Student's t in plain Python: the quantile of one (q, df) and the two-sided p of one t,
what the design check, the analysis's floors and its t-tests ask for one number at a
time, without importing SciPy (scipy.special takes ~0.1 s to import: half of a spec
check's time goal, and a share of every campaign's fixed cost; issue 46).
tests/unit/analysis/test_student_t.py holds both to SciPy's stdtrit and stdtr.

With x = df / (df + t^2): P(T > t) = I_x(df/2, 1/2) / 2 and P(|T| < t) = I_(1-x)(1/2, df/2),
I the regularized incomplete beta, by its continued fraction (modified Lentz). Both x and
1 - x and their logarithms are formed from t^2 / df with log1p, and lgamma(a + 1/2) -
lgamma(a) by Stirling's series for a large a, so that a large df keeps its precision. The
quantile is the root of log P(T > t) (or of P(|T| < t) near the median, where that one is
small and exact) by Newton's method, kept inside a bracket by bisection.
Caveats: the continued fraction takes about sqrt(df) terms: above DF_EXPANSION the quantile
is the normal's with the expansion in 1/df of Abramowitz & Stegun 26.7.5, whose first term
left out is below the arithmetic's rounding there. A p keeps the fraction at any df: it
agrees with SciPy's to about 1e-12 relative up to df 1e5 and loses digits beyond (3e-9 at
df 1e8), far below what a verdict reads of it.
"""
from __future__ import annotations

import math
from statistics import NormalDist

DF_EXPANSION = 1e5
_TINY = 1e-300
_EPS = 1e-16
_LGAMMA_HALF = math.lgamma(0.5)


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b) (Numerical Recipes' betacf, modified Lentz)."""
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, 1_000_000):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + num / c
            c = c if abs(c) > _TINY else _TINY
            h *= d * c
        if abs(d * c - 1.0) < _EPS:
            return h
    raise ArithmeticError(f"incomplete beta I_{x}({a}, {b}): the continued fraction did not converge")


def _stirling(z: float) -> float:
    return 1 / (12 * z) - 1 / (360 * z ** 3) + 1 / (1260 * z ** 5) - 1 / (1680 * z ** 7)


def _lgamma_half_step(a: float) -> float:
    """lgamma(a + 1/2) - lgamma(a), without the cancellation of the two for a large a."""
    if a < 10:
        return math.lgamma(a + 0.5) - math.lgamma(a)
    return 0.5 * math.log(a) + (a * math.log1p(0.5 / a) - 0.5) + _stirling(a + 0.5) - _stirling(a)


def _half_beta(big: float, x: float, y: float, log_x: float, log_y: float, big_first: bool) -> float:
    """I_x(big, 1/2) (big_first) or I_x(1/2, big), y = 1 - x, with their logarithms."""
    a, b = (big, 0.5) if big_first else (0.5, big)
    log_front = _lgamma_half_step(big) - _LGAMMA_HALF + a * log_x + b * log_y
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(b, a, y) / b


def _parts(t: float, df: float) -> tuple[float, float, float, float]:
    """x = df / (df + t^2), 1 - x, and their logarithms, from r = t^2 / df."""
    r = t * t / df
    log_x = -math.log1p(r)
    log_y = math.log(r) + log_x
    return math.exp(log_x), -math.expm1(log_x), log_x, log_y


def upper_tail(t: float, df: float) -> float:
    """P(T > t) for t > 0."""
    x, y, log_x, log_y = _parts(t, df)
    return 0.5 * _half_beta(df / 2.0, x, y, log_x, log_y, big_first=True)


def two_sided_p(t: float, df: float) -> float:
    """P(|T| >= |t|): a t statistic's two-sided p (nan for a nan t or df <= 0)."""
    t = abs(t)
    if math.isnan(t) or not df > 0.0:
        return math.nan
    if t == 0.0 or math.isinf(t):
        return 1.0 if t == 0.0 else 0.0
    if math.isinf(df):  # the normal's
        return math.erfc(t / math.sqrt(2.0))
    return min(1.0, 2.0 * upper_tail(t, df))


def _central(t: float, df: float) -> float:
    """P(-t < T < t) for t > 0: precise where it is small (t near 0)."""
    x, y, log_x, log_y = _parts(t, df)
    return _half_beta(df / 2.0, y, x, log_y, log_x, big_first=False)


def _density(t: float, df: float) -> float:
    return math.exp(_lgamma_half_step(df / 2.0) - 0.5 * math.log(df * math.pi) - (df + 1.0) / 2.0 * math.log1p(t * t / df))


def quantile(q: float, df: float) -> float:
    """The q quantile of Student's t with df degrees of freedom (df > 0; nan otherwise)."""
    if not 0.0 <= q <= 1.0 or not df > 0.0:
        return math.nan
    if q in (0.0, 0.5, 1.0):
        return 0.0 if q == 0.5 else math.copysign(math.inf, q - 0.5)
    if df > DF_EXPANSION:
        return _expansion(NormalDist().inv_cdf(q), df)
    sign = 1.0 if q > 0.5 else -1.0
    if abs(q - 0.5) < 0.25:  # near the median: P(|T| < t) = |2q - 1|, exact in floating point here
        central = abs(2.0 * q - 1.0)
        return sign * _solve(lambda t: _central(t, df) - central, lambda t: 2.0 * _density(t, df), rising=True)
    log_tail = math.log(min(q, 1.0 - q))  # 1 - q is exact for q >= 0.5
    return sign * _solve(lambda t: math.log(upper_tail(t, df)) - log_tail,
                         lambda t: -_density(t, df) / upper_tail(t, df), rising=False)


def _expansion(z: float, df: float) -> float:
    """Abramowitz & Stegun 26.7.5: t's quantile from the normal's z, in powers of 1/df."""
    z2 = z * z
    terms = (z * (z2 + 1) / 4,
             z * ((5 * z2 + 16) * z2 + 3) / 96,
             z * (((3 * z2 + 19) * z2 + 17) * z2 - 15) / 384,
             z * ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) / 92160)
    return z + sum(term / df ** (k + 1) for k, term in enumerate(terms))


def _solve(f, slope, rising: bool) -> float:
    """The t > 0 where f, rising or falling, is 0: a bracket found by doubling, then
    Newton's method (slope: f's derivative), a step that leaves the bracket bisected."""
    lo, hi = 0.0, 1.0
    while (f(hi) < 0.0) == rising:  # hi still before the root
        lo, hi = hi, hi * 2.0
        if math.isinf(hi):  # the root is past the largest float (a far tail of a small df)
            return math.inf
    t = (lo + hi) / 2.0
    for _ in range(400):
        value = f(t)
        if value == 0.0:
            return t
        if (value < 0.0) == rising:
            lo = t
        else:
            hi = t
        nxt = t - value / slope(t)
        if not lo < nxt < hi:
            nxt = (lo + hi) / 2.0
        if abs(nxt - t) <= 4e-16 * abs(t):
            return nxt
        t = nxt
    return t
