"""The search's objective (search/objective.py): worse is larger, whatever the statistic."""
from __future__ import annotations

import pytest

from xtalk.search.objective import harm, harm_unit


def test_a_duration_twice_as_long_is_plus_100_percent():
    assert harm([20.0, 20.0], [10.0, 10.0], "log", "ticks", "lower") == pytest.approx(100.0)
    assert harm_unit("log", "ticks") == "%"


def test_a_throughput_halved_is_as_bad_as_a_duration_doubled():
    assert harm([5.0], [10.0], "log", "per_s", "higher") == pytest.approx(100.0)


def test_a_share_is_in_points():
    assert harm([0.30, 0.32], [0.01, 0.01], "diff", "share", "lower") == pytest.approx(30.0)
    assert harm_unit("diff", "share") == "points"


def test_no_value_gives_no_harm():
    assert harm([], [1.0], "log", "ticks", "lower") is None
    assert harm([None], [1.0], "diff", "share", "lower") is None
