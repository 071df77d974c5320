"""What a design of n units can decide, in plain Python: the exact tests' smallest p
(`min_p`), the fewest units that reach alpha (`min_units`), Student's t quantile
(`t_quantile`) and the smallest change a test detects with POWER (`detectable`).
`xtalk spec check`'s design check asks nothing else of the inference, so this module
imports neither NumPy nor SciPy (~50 ms and ~100 ms of a spec check's 300 ms goal; issue
46); analysis/inference.py builds its tests on it.
Caveat: one df at a time (student_t's quantile, SciPy's numbers:
tests/unit/analysis/test_student_t.py); a search over designs asks once per design.
"""
from __future__ import annotations

import functools
import math

from . import student_t

ALPHA = 0.01
POWER = 0.8


def min_p(na: int, nb: int | None = None) -> float:
    """The smallest two-sided p an exact test can give: permutation of na vs nb units,
    or (nb None) sign flips of na paired differences. Integer division: exact for any
    count of units (a float numerator overflows past about 1,000 runs: 2.0 / 2**1100)."""
    if nb is None:
        return 2 / 2 ** na if na else 1.0
    if not na or not nb:
        return 1.0
    return min(1.0, (2 if na == nb else 1) / math.comb(na + nb, na))


def min_units(alpha: float = ALPHA, paired: bool = False) -> int:
    """Fewest units (runs per configuration, or on/off windows) an exact test needs to reach alpha."""
    k = 1
    while (min_p(k) if paired else min_p(k, k)) >= alpha:
        k += 1
    return k


def t_quantile(q: float, df) -> float:
    """The q quantile of Student's t with df degrees of freedom (a number, a NumPy scalar
    or a 0-d array): student_t's, scipy.stats.t.ppf's numbers."""
    return _quantile(float(q), float(df))


@functools.lru_cache(maxsize=8192)
def _quantile(q: float, df: float) -> float:
    """student_t.quantile (~0.2 ms a call in Python) remembered: an analysis asks the same
    few (q, df) again and again (units_needed's search over designs, one per row)."""
    return student_t.quantile(q, df)


def detectable(sd, df, alpha: float = ALPHA, power: float = POWER):
    """(t quantile at 1 - alpha/2 + t quantile at power, df degrees of freedom) x sd: the
    smallest change a two-sided test at alpha detects with that power, before the caller
    scales sd to its design (x sqrt(1/n_a + 1/n_b), / sqrt(cycles))."""
    return (t_quantile(1 - alpha / 2, df) + t_quantile(power, df)) * sd
