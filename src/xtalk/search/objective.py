"""How much a neighbour hurts the measurer, as one number a search maximises: the
change of the metric kind's primary statistic over runs against the measurer alone, in
the direction that is worse — in % for statistics compared as ratios (a median, a p99:
+100 = twice as slow), in percentage points for shares (stolen time), in the statistic's
own unit for other differences. The runs' mean on the analysis scale (log for ratios), so
the same scale the verdicts test on.

Caveat: a trial is compared with the search's own solo runs, measured once at its start;
a host that drifts during a long search shifts every later trial alike. The search only
ranks with it; the numbers a user reads come from the confirmation campaign, where the
found neighbour, the defaults and the measurer alone run side by side.
"""
from __future__ import annotations

import math

import numpy as np


def harm(values: list[float], alone: list[float], scale: str, unit: str, better: str) -> float | None:
    a = [v for v in values if v is not None]
    b = [v for v in alone if v is not None]
    if not a or not b:
        return None
    sign = 1.0 if better == "lower" else -1.0
    if scale == "log":
        a, b = [v for v in a if v > 0], [v for v in b if v > 0]
        if not a or not b:
            return None
        return (math.exp(sign * (np.mean(np.log(a)) - np.mean(np.log(b)))) - 1) * 100
    per = 100.0 if unit in ("share", "fraction") else 1.0
    return sign * (float(np.mean(a)) - float(np.mean(b))) * per


def harm_unit(scale: str, unit: str) -> str:
    return "%" if scale == "log" else "points" if unit in ("share", "fraction") else unit
