"""Effect sizes, significance and bootstrap CIs against brute force and scipy."""
import numpy as np
import pytest
import scipy.stats

from xtalk.analysis.compare import bootstrap_changes, effect, statement


def brute_cles(a, b):
    gt = (a[:, None] > b[None, :]).mean()
    eq = (a[:, None] == b[None, :]).mean()
    return gt + 0.5 * eq


def test_effect_matches_brute_force_and_scipy_with_ties():
    rng = np.random.default_rng(0)
    a = np.round(rng.lognormal(0.3, 0.8, 700), 1)  # heavy tail, many ties
    b = np.round(rng.lognormal(0.0, 0.8, 500), 1)
    eff = effect(a, b)
    assert eff["cles"] == pytest.approx(brute_cles(a, b), rel=1e-12)
    assert eff["cliffs_delta"] == pytest.approx(2 * brute_cles(a, b) - 1, rel=1e-12)
    ref = scipy.stats.mannwhitneyu(a, b, alternative="two-sided", method="asymptotic")
    assert eff["p_value"] == pytest.approx(ref.pvalue)


def test_bootstrap_ci_covers_the_true_change():
    rng = np.random.default_rng(1)
    base = rng.gamma(4.0, 250.0, 3000) + 1000
    slow = (rng.gamma(4.0, 250.0, 3000) + 1000) * 1.9
    cis = bootstrap_changes(slow, base, np.random.default_rng(2), n_boot=400)
    assert cis["mean"][0] < 90 < cis["mean"][1]
    assert cis["median"][0] < 90 < cis["median"][1]
    assert cis["p99"][0] < 90 < cis["p99"][1]


def test_statements_in_words():
    rng = np.random.default_rng(3)
    base = rng.normal(1000, 10, 400)
    slow = base * 1.9
    text = statement("same-core", "qsort", "cycles", 1.9, effect(slow, base))
    assert text.startswith("same-core makes qsort 1.90x slower (median); slower in 100% of sample pairs")
    assert "p<1e-9" in text
    same = statement("other-core", "qsort", "cycles", 1.0, effect(base, rng.normal(1000, 10, 400)))
    assert "no significant difference" in same
    faster = statement("x", "ops", "count", 0.5, effect(base * 0.5, base))
    assert "2.00x lower" in faster
