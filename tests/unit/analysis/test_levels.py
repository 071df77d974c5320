"""The campaign as a level (analysis/levels.py), on synthetic campaigns whose runs share a
campaign-level drift: identical campaigns compared pairwise stay "different" at most alpha
once the drift is measured (and far above it when only runs are counted: the problem the
level is for); a planted difference is found with three campaigns a side; an unmeasured
drift keeps a drift-sized difference from being called one."""
import itertools
import math

import numpy as np
import pytest

from xtalk.analysis.effects import Rules, assess_runs
from xtalk.analysis.kinds import MEDIAN, STOLEN
from xtalk.analysis.levels import Side, assess_sides, drift_of

LABELS = ("different", "no-difference", "inconclusive")
ALPHA = 0.01


def campaigns(rng, k: int, runs: int = 6, level: float = 1000.0, drift_sd: float = 0.03, run_sd: float = 0.005):
    """k campaigns of `runs` run medians: each campaign shifted by its own drift (log-normal)."""
    return [list(level * np.exp(rng.normal(0, drift_sd) + rng.normal(0, run_sd, runs))) for _ in range(k)]


def test_drift_is_the_variance_of_campaign_values():
    groups = [[100.0, 100.0], [110.0, 110.0], [90.0, 90.0]]
    d = drift_of(groups, "log")
    assert d.df == 2 and d.campaigns == 3
    assert d.var == pytest.approx(np.var(np.log([100, 110, 90]), ddof=1))
    assert drift_of(groups[:1], "log") is None


def test_pairwise_aa_over_stored_campaigns_stays_below_alpha_where_runs_alone_do_not():
    """Five identical campaigns, every pair compared, the other three as replicates (the
    user's results directory), repeated: rows called different <= alpha. The same pairs by
    runs alone (the old compare) are called different far more often."""
    rng = np.random.default_rng(1)
    levels_different = runs_different = rows = 0
    for _ in range(120):
        five = campaigns(rng, 5)
        for i, j in itertools.combinations(range(5), 2):
            rest = [five[k] for k in range(5) if k not in (i, j)]
            row = assess_sides(MEDIAN, Side([five[j]], rest), Side([five[i]], rest), Rules(negligible_pct=1), rng,
                               LABELS, shared_siblings=True)
            old = assess_runs(MEDIAN, five[j], five[i], Rules(negligible_pct=1), rng, LABELS)
            assert row["level"] == "campaigns" and row["drift"]["measured"]
            levels_different += row["verdict"] == "different"
            runs_different += old["verdict"] == "different"
            rows += 1
    assert levels_different / rows <= ALPHA
    assert runs_different / rows > 10 * ALPHA   # the drift this test models is real to the old method


def test_three_campaigns_a_side_aa_stays_below_alpha():
    rng = np.random.default_rng(2)
    verdicts = [assess_sides(MEDIAN, Side(campaigns(rng, 3)), Side(campaigns(rng, 3)), Rules(negligible_pct=1), rng,
                             LABELS)["verdict"] for _ in range(1500)]
    assert verdicts.count("different") / len(verdicts) <= ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / 1500)


def test_a_planted_difference_is_found_with_three_campaigns_a_side():
    """+25 % (qsort over 320 against 256 KiB is about that) with a 3 % drift between campaigns."""
    rng = np.random.default_rng(3)
    found = []
    for _ in range(200):
        row = assess_sides(MEDIAN, Side(campaigns(rng, 3, level=1250)), Side(campaigns(rng, 3)), Rules(), rng, LABELS)
        found.append(row["verdict"] == "different")
        assert row["units"] == [3, 3] and row["runs"] == [18, 18] and row["test"] == "t-test over campaigns"
    assert np.mean(found) > 0.9
    assert row["change_pct"] == pytest.approx(25, abs=8) and row["ci95_pct"][0] > 0


def test_a_side_with_one_campaign_borrows_the_drift_of_the_other_sides_replicates():
    rng = np.random.default_rng(4)
    a = campaigns(rng, 4)
    row = assess_sides(MEDIAN, Side(campaigns(rng, 1, level=2000)), Side(a[:1], a[1:]), Rules(), rng, LABELS)
    assert row["drift"]["borrowed"] and row["verdict"] == "different"
    assert "t-test over campaigns (1 vs 1 campaigns, 6 vs 6 runs)" in _sentence(row)


def test_unmeasured_drift_keeps_a_drift_sized_difference_from_being_called_one():
    """One campaign a side, no replicates: 6 % with a 0.5 % run spread is significant by
    runs, but inside the assumed drift (25 %): inconclusive, saying why; 40 % is different."""
    rng = np.random.default_rng(5)
    base = campaigns(rng, 1, drift_sd=0)
    small = assess_sides(MEDIAN, Side(campaigns(rng, 1, level=1060, drift_sd=0)), Side(base), Rules(), rng, LABELS)
    assert small["level"] == "runs" and not small["drift"]["measured"]
    assert small["verdict"] == "inconclusive" and "not measured" in small["reason"] and small["p_value"] < 0.01
    large = assess_sides(MEDIAN, Side(campaigns(rng, 1, level=1400, drift_sd=0)), Side(base), Rules(), rng, LABELS)
    assert large["verdict"] == "different" and "drift between campaigns not measured" in _sentence(large)
    looser = assess_sides(MEDIAN, Side(campaigns(rng, 1, level=1060, drift_sd=0)), Side(base), Rules(drift_pct=2),
                          rng, LABELS)
    assert looser["verdict"] == "different"


def test_shares_drift_in_points():
    rng = np.random.default_rng(6)
    side = lambda mean: [list(np.clip(rng.normal(mean + rng.normal(0, 0.01), 0.003, 5), 0, 1)) for _ in range(3)]  # noqa: E731
    row = assess_sides(STOLEN, Side(side(0.40)), Side(side(0.02)), Rules(), rng, LABELS)
    assert row["scale"] == "diff" and row["verdict"] == "different" and row["change"] == pytest.approx(0.38, abs=0.03)
    assert "points" in row["drift"]["sd_text"]


def _sentence(row: dict) -> str:
    from xtalk.analysis.wording import sentence
    return sentence("B vs A", "qsort", row, [], "lower", 1.0, "cycles", row.get("level", "runs"))
