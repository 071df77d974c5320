"""The inference behind verdicts: exact tests checked against brute force and scipy, and
the decision rule's error rates checked by simulation (A/A must stay at or below alpha,
a real effect of a few noise floors must be found)."""
import itertools
import math

import numpy as np
import pytest
import scipy.stats

from xtalk.analysis import inference, power
from xtalk.analysis.effects import Rules, assess_runs
from xtalk.analysis.kinds import MEDIAN, STOLEN
from xtalk.analysis.wording import sentence


def test_exact_permutation_p_matches_brute_force_and_scipy():
    rng = np.random.default_rng(3)
    a, b = rng.normal(0.3, 1, 5), rng.normal(0, 1, 6)
    p, exact = inference.permutation_p(a, b, rng)
    x = np.concatenate([a, b])
    obs = abs(a.mean() - b.mean())
    hits = [abs(x[list(c)].mean() - np.delete(x, c).mean()) >= obs - 1e-12
            for c in itertools.combinations(range(11), 5)]
    assert exact and p == pytest.approx(np.mean(hits))
    ref = scipy.stats.permutation_test((a, b), lambda u, v: abs(np.mean(u) - np.mean(v)),
                                       permutation_type="independent", n_resamples=np.inf, alternative="greater")
    assert p == pytest.approx(ref.pvalue)


def test_complete_separation_gives_the_smallest_exact_p():
    rng = np.random.default_rng(0)
    assert inference.permutation_p([5, 6, 7], [1, 2, 3], rng)[0] == pytest.approx(0.1)
    assert inference.permutation_p(np.arange(10, 15), np.arange(5), rng)[0] == pytest.approx(2 / 252)
    assert power.min_p(3, 3) == pytest.approx(0.1) and power.min_p(5, 5) == pytest.approx(2 / 252)
    assert power.min_units(0.01) == 5 and power.min_units(0.05) == 4 and power.min_units(0.01, paired=True) == 8


def test_smallest_exact_p_of_thousands_of_runs_is_zero_not_an_overflow():
    """A campaign of 10,000 runs compares 2,000 runs against 2,000: C(4000, 2000) and
    2**1100 are beyond a float; the smallest p underflows to 0."""
    assert power.min_p(2000, 2000) == 0.0 and power.min_p(1100) == 0.0 and power.min_p(4000, 1) == pytest.approx(1 / 4001)


def test_monte_carlo_permutation_when_there_are_too_many_arrangements():
    rng = np.random.default_rng(1)
    a, b = rng.normal(1, 1, 15), rng.normal(0, 1, 15)
    p, exact = inference.permutation_p(a, b, rng)
    assert not exact and math.comb(30, 15) > inference.MAX_EXACT
    ref = scipy.stats.ttest_ind(a, b).pvalue
    assert p == pytest.approx(ref, rel=0.3, abs=2e-4)


def test_signflip_exact_matches_scipy():
    rng = np.random.default_rng(2)
    d = rng.normal(0.5, 1, 9)
    p, exact = inference.signflip_p(d, rng)
    ref = scipy.stats.permutation_test((d,), lambda u: abs(np.mean(u)), permutation_type="samples",
                                       n_resamples=np.inf, alternative="greater")
    assert exact and p == pytest.approx(ref.pvalue)


def test_floor_from_the_reference_spread():
    ref = np.log([100.0, 102.0, 98.0, 101.0, 99.0])
    fl = inference.floor_and_mde(ref, 5, 5, alpha=0.01)
    expect = scipy.stats.t.ppf(0.995, 4) * ref.std(ddof=1) * math.sqrt(2 / 5)
    assert fl["floor"] == pytest.approx(expect) and fl["mde"] > fl["floor"]
    assert inference.floor_and_mde(ref[:1], 5, 5)["floor"] is None


def test_units_needed_shrinks_with_the_effect():
    small, large = inference.units_needed(0.05, 0.02), inference.units_needed(0.05, 0.2)
    assert large == power.min_units() <= small
    assert inference.units_needed(0.05, 1e-6) is None


@pytest.mark.parametrize("paired", [False, True])
def test_units_needed_is_the_first_design_scipy_says_detects_the_change(paired):
    """Its search over k gives the k a scan of every design with scipy.stats's quantiles gives."""
    for alpha, pw in ((0.01, 0.8), (0.05, 0.5)):
        k = np.arange(max(2, power.min_units(alpha, paired)), inference.MAX_UNITS + 1)
        df = k - 1 if paired else 2 * k - 2
        need = (scipy.stats.t.ppf(1 - alpha / 2, df) + scipy.stats.t.ppf(pw, df)) * np.sqrt((1 if paired else 2) / k)
        for effect in (3.0, 1.0, 0.5, 0.2, 0.11, 0.1, 0.05, 0.01):
            ok = np.flatnonzero(need * 0.1 <= effect)
            scan = int(k[ok[0]]) if len(ok) else None
            assert inference.units_needed(0.1, effect, alpha, pw, paired) == scan


@pytest.mark.slow
@pytest.mark.parametrize("n", [5, 8])
def test_aa_false_interference_rate_stays_below_alpha(n):
    """2000 A/A comparisons of n vs n runs with log-normal run-to-run spread."""
    rng = np.random.default_rng(n)
    verdicts = []
    for _ in range(2000):
        a = list(np.exp(rng.normal(np.log(1000), 0.02, n)))
        b = list(np.exp(rng.normal(np.log(1000), 0.02, n)))
        verdicts.append(assess_runs(MEDIAN, a, b, Rules(), rng)["verdict"])
    rate = verdicts.count("interference") / len(verdicts)
    assert rate <= 0.01 + 3 * math.sqrt(0.01 * 0.99 / 2000)
    # a 2% run-to-run spread resolves the default negligible change (5%) with these runs
    assert verdicts.count("no-interference") / len(verdicts) > 0.6


def test_a_noisy_baseline_gives_no_verdict_either_way():
    """A baseline spread of 40%: even a significant doubling is not above its noise floor,
    and nothing can be called negligible."""
    rng = np.random.default_rng(4)
    base = list(np.exp(rng.normal(np.log(1000), 0.4, 5)))
    row = assess_runs(MEDIAN, [2600, 2650, 2700, 2620, 2680], base, Rules(), rng)
    assert row["verdict"] == "inconclusive" and row["noise_floor_pct"] > 100
    same = assess_runs(MEDIAN, base, list(np.exp(rng.normal(np.log(1000), 0.4, 5))), Rules(), rng)
    assert same["verdict"] == "inconclusive" and same["need_units"] > 5


def test_an_effect_of_a_few_floors_is_found_with_its_size():
    rng = np.random.default_rng(7)
    found, sizes = 0, []
    for _ in range(300):
        b = list(np.exp(rng.normal(np.log(1000), 0.02, 5)))
        a = list(np.exp(rng.normal(np.log(1150), 0.02, 5)))
        row = assess_runs(MEDIAN, a, b, Rules(), rng)
        found += row["verdict"] == "interference"
        sizes.append(row["change_pct"])
    assert found / 300 > 0.95
    assert np.median(sizes) == pytest.approx(15, abs=1.5)


def test_three_runs_against_three_use_welchs_t_and_say_so():
    """An exact test of 3 vs 3 runs cannot reach 0.01 (smallest p 0.1): a doubling with a
    0.5 % run-to-run spread is decided by Welch's t-test, and the sentence names it."""
    rng = np.random.default_rng(0)
    row = assess_runs(MEDIAN, [2000, 2010, 1990], [1000, 1005, 995], Rules(), rng)
    assert row["verdict"] == "interference" and row["test"] == "Welch's t-test" and row["p_value"] < 1e-4
    assert row["change_pct"] == pytest.approx(100, rel=1e-3)
    assert "by Welch's t-test (3 vs 3 runs)" in sentence("x", "qsort", row, [], "lower", 1.0, "cycles", "runs")
    five = assess_runs(MEDIAN, [2000, 2010, 1990, 2005, 1995], [1000, 1005, 995, 1002, 998], Rules(), rng)
    assert five["test"] == "exact permutation test" and five["p_value"] == pytest.approx(2 / 252)


def test_one_run_a_side_has_no_test():
    row = assess_runs(MEDIAN, [2000], [1000, 1005, 995], Rules(), np.random.default_rng(0))
    assert row["verdict"] == "inconclusive" and row["p_value"] is None and "too few runs" in row["reason"]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_aa_rate_of_the_t_test_fallback_stays_below_alpha(n):
    """Where the exact test cannot reach alpha, Welch's t-test decides: its A/A rate of
    'interference' must still hold, for normal and for skewed (log-normal spread 0.3) runs."""
    rng = np.random.default_rng(10 + n)
    for spread in (0.02, 0.3):
        verdicts = [assess_runs(MEDIAN, list(np.exp(rng.normal(7, spread, n))), list(np.exp(rng.normal(7, spread, n))),
                                Rules(), rng)["verdict"] for _ in range(2000)]
        assert verdicts.count("interference") / len(verdicts) <= 0.01 + 3 * math.sqrt(0.01 * 0.99 / 2000)


def test_a_hog_many_times_the_spread_is_found_with_four_runs():
    """The issue's case: stolen time 1.72 % -> 39.4 % of the CPU with 4 runs a side (an exact
    permutation test of 4 vs 4 cannot go below p = 0.029)."""
    rng = np.random.default_rng(5)
    row = assess_runs(STOLEN, list(rng.normal(0.394, 0.006, 4)), list(rng.normal(0.0172, 0.004, 4)), Rules(), rng)
    assert row["verdict"] == "interference" and row["test"] == "Welch's t-test"
    assert row["change"] == pytest.approx(0.377, abs=0.02)


def test_no_verdict_contradicts_its_interval_on_skewed_runs():
    """Synthetic runs with one far outlier on a side (skewed): the permutation test can be
    significant while the t-interval includes zero; such a row is never 'interference'."""
    rng = np.random.default_rng(11)
    seen_disagreement = 0
    for _ in range(800):
        n = int(rng.integers(5, 9))
        base = np.exp(rng.normal(7, 0.03, n))
        other = np.exp(rng.normal(7.02, 0.03, n))
        other[rng.integers(n)] *= float(rng.choice([0.2, 0.5, 2.0, 5.0]))   # one skewed run
        for labels in (("interference", "no-interference", "inconclusive"),
                       ("different", "no-difference", "inconclusive")):
            row = assess_runs(MEDIAN, list(other), list(base), Rules(negligible_pct=1), rng, labels)
            lo, hi = row["ci95_pct"]
            if row["verdict"] == labels[0]:
                assert lo > 0 or hi < 0, row
            seen_disagreement += "disagree" in row["reason"]
    assert seen_disagreement > 0   # the case the rule is for did occur


def test_shares_are_compared_as_differences():
    rng = np.random.default_rng(0)
    row = assess_runs(STOLEN, [0.51, 0.52, 0.50, 0.515, 0.505], [0.0, 0.01, 0.005, 0.008, 0.002], Rules(), rng)
    assert row["scale"] == "diff" and row["verdict"] == "interference"
    assert row["change"] == pytest.approx(0.505)


def test_t_quantile_and_p_are_scipy_stats_numbers():
    """student_t's quantile and p (xtalk run imports no SciPy): scipy.stats's numbers to the
    last digits (test_student_t.py goes further)."""
    rng = np.random.default_rng(5)
    qs = np.concatenate([rng.uniform(0.5, 1, 200), [0.8, 0.9, 0.975, 0.995, 0.9995]])
    dfs = np.concatenate([rng.uniform(0.5, 300, 200), [1, 2, 4, 9, np.inf]])
    for q, df in zip(qs, dfs):
        assert power.t_quantile(q, df) == pytest.approx(scipy.stats.t.ppf(q, df), rel=1e-12, abs=1e-14)
        diff = float(rng.normal(0, 3))
        assert inference.t_p(diff, 0.7, df) == pytest.approx(2 * scipy.stats.t.sf(abs(diff) / 0.7, df), rel=1e-12)
