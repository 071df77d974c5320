"""student_t.quantile and two_sided_p (plain Python) against SciPy's stdtrit and stdtr, the
Cauchy's closed form and SciPy's CDF, over the quantiles, t and degrees of freedom the
analysis asks for and beyond."""
import math

import numpy as np
import pytest
import scipy.special

from xtalk.analysis import power, student_t

TAILS = [1e-12, 1e-9, 1e-6, 5e-4, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.24, 0.26, 0.3, 0.45, 0.49]
DFS = [0.5, 1, 1.5, 2, 3, 4, 5, 7, 9, 10.3, 19, 29.7, 49, 99, 199, 999, 1e4, 5e4, 99_999, 100_001, 1e6, 1e8, 1e10,
       1e13, 1e17]


@pytest.mark.parametrize("df", DFS)
def test_quantiles_are_scipys(df):
    for tail in TAILS:
        for q in (tail, 1 - tail):
            assert student_t.quantile(q, df) == pytest.approx(float(scipy.special.stdtrit(df, q)), rel=2e-12, abs=0)


@pytest.mark.parametrize("df", [0.5, 2, 4, 10.3, 99, 1e4, 1e6])
def test_near_the_median_the_cdf_gives_back_q(df):
    """Where SciPy's stdtrit loses digits (|q - 0.5| < 1e-4), its CDF does not: the
    quantile's probability is q's."""
    for q in (0.5 + 1e-9, 0.5 + 1e-7, 0.5001, 0.49999):
        t = student_t.quantile(q, df)
        assert 2 * float(scipy.special.stdtr(df, t)) - 1 == pytest.approx(2 * q - 1, rel=1e-12)


def test_the_cauchy_is_its_closed_form():
    """df = 1: t = tan(pi (q - 1/2)), written from the nearer tail (exact there)."""
    for q in (0.5 + 1e-9, 0.5000001, 0.6, 0.9, 0.995, 1 - 1e-9, 0.3, 1e-6):
        closed = math.tan(math.pi * (q - 0.5)) if abs(q - 0.5) < 0.25 else \
            math.copysign(1 / math.tan(math.pi * min(q, 1 - q)), q - 0.5)
        assert student_t.quantile(q, 1.0) == pytest.approx(closed, rel=1e-12)


def test_the_ends_and_what_has_none():
    assert student_t.quantile(0.5, 7) == 0.0
    assert student_t.quantile(1.0, 7) == math.inf and student_t.quantile(0.0, 7) == -math.inf
    assert math.isnan(student_t.quantile(1.5, 7)) and math.isnan(student_t.quantile(0.9, 0))


def test_power_takes_a_df_of_any_scalar_kind():
    for one in (9, 9.0, np.int64(9), np.float64(9), np.array(9.0)):
        assert power.t_quantile(0.995, one) == student_t.quantile(0.995, 9)


@pytest.mark.parametrize("df", [0.5, 1, 2, 3.7, 9, 29.7, 199, 1e4, 1e5, math.inf])
def test_two_sided_p_is_scipys(df):
    for t in (1e-9, 0.01, 0.3, 1.0, 2.0, 2.5, 4.0, 10.0, 40.0, 300.0):
        for sign in (1, -1):
            expect = float(2 * scipy.special.stdtr(df, -t))  # near 1 its last digits go (df 1, t 1e-9: 1.0)
            assert student_t.two_sided_p(sign * t, df) == pytest.approx(expect, rel=1e-11 if expect < 0.5 else 1e-9)


def test_two_sided_p_of_the_cauchy_is_its_closed_form():
    for t in (1e-9, 1e-3, 0.5, 1.0, 3.0, 1e3, 1e6):
        assert student_t.two_sided_p(t, 1.0) == pytest.approx(1 - 2 * math.atan(t) / math.pi, rel=1e-12)


def test_two_sided_p_at_the_ends():
    assert student_t.two_sided_p(0.0, 4) == 1.0 and student_t.two_sided_p(-math.inf, 4) == 0.0
    assert math.isnan(student_t.two_sided_p(math.nan, 4)) and math.isnan(student_t.two_sided_p(1.0, 0))
