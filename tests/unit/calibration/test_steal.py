"""`xtalk calibrate`'s steal analysis on a synthetic steal log and gap arrays: each steal
is matched to the gap that covers it (not to a small gap near it, not to a gap that ends
long after it or began long before it), and the fit recovers a known switch cost and slope; a measurement 10 %
short fails the slope check."""
import numpy as np
import pytest

from xtalk.calibration.calibrate import steal_lengths
from xtalk.calibration.steal import MATCH_S, covering_gaps, fit_gaps, logged_steals, run_lag, slope_check

ORIGIN_NS = 5_000_000_000
PERIOD_S = 0.01
SWITCH_S = 16e-6


def steal_log(lengths_us: list[float], first_s: float = 0.001) -> str:
    """The injector's log: one steal of each length in turn, every PERIOD_S from first_s."""
    lines = ["XT BEGIN run=r bench=steal role=stressor", "XT META run=r sched=fifo prio=50"]
    for i, length in enumerate(lengths_us):
        start = ORIGIN_NS + round((first_s + i * PERIOD_S) * 1e9)
        lines.append(f"STEAL {start} {start + round(length * 1e3)}")
    return "\n".join(lines) + "\n"


def measured(steals: np.ndarray, slope: float, rng) -> tuple[np.ndarray, np.ndarray]:
    """Gaps as the probe would see them: each steal's (slope x length + the switch cost,
    ending 20-60 µs after the steal), and 3 µs gaps every 50 µs around them."""
    length = slope * (steals[:, 1] - steals[:, 0]) + SWITCH_S + rng.normal(0, 2e-6, len(steals))
    end = steals[:, 1] + rng.uniform(20e-6, 60e-6, len(steals))
    small_end = np.arange(0, steals[-1, 1] + 0.01, 50e-6)
    small_end = small_end[~np.any((small_end[:, None] > steals[:, 0] - 1e-4) & (small_end[:, None] < end + 1e-4), 1)]
    return np.concatenate([end, small_end]), np.concatenate([length, np.full(len(small_end), 3e-6)])


def test_the_log_gives_the_steals_inside_the_measured_window():
    text = f"STEAL {ORIGIN_NS - 2_000_000} {ORIGIN_NS - 1_700_000}\n" + steal_log([300, 1000, 300])  # one before
    steals = logged_steals(text, ORIGIN_NS, window_s=0.015)  # the third ends after the window
    assert steals == pytest.approx(np.array([[0.001, 0.0013], [0.011, 0.012]]))


def test_each_steal_is_matched_to_the_gap_that_covers_it_and_the_fit_recovers_the_switch_cost():
    rng = np.random.default_rng(1)
    steals = logged_steals(steal_log([300, 1000] * 200), ORIGIN_NS, window_s=10.0)
    end, length = measured(steals, 1.0, rng)
    keep = np.ones(len(end), bool)
    keep[3] = False  # the probe missed steal 3: only small gaps near it
    keep[[5, 8]] = False  # each in a gap with another task's time in it, after (5) or before (8): not their cost
    end = np.concatenate([end[keep], [steals[5, 1] + 1e-3, steals[8, 1] + 30e-6]])
    length = np.concatenate([length[keep], [2.3e-3, steals[8, 1] + 30e-6 - (steals[8, 0] - 2e-3)]])
    gaps = covering_gaps(steals, end, length)
    missed = [3, 5, 8]
    assert np.isnan(gaps[missed]).all() and np.isfinite(np.delete(gaps, missed)).all()
    seen = ~np.isnan(gaps)
    fit = fit_gaps(steals[seen, 1] - steals[seen, 0], gaps[seen])
    assert fit.steals == 397
    assert fit.intercept_s == pytest.approx(SWITCH_S, abs=1e-6)
    assert SWITCH_S - 1e-6 < fit.intercept_ci_s[0] < fit.intercept_s < fit.intercept_ci_s[1] < SWITCH_S + 1e-6
    assert 0.995 < fit.slope_ci[0] < fit.slope < fit.slope_ci[1] < 1.005
    assert slope_check(fit)["ok"] is True


def test_a_run_whose_time_axis_lags_the_log_is_matched_after_its_lag_is_taken_out():
    """The clock mapping puts every gap of a run 280 µs late (a stale heartbeat pair, as on
    an AMD EPYC host): unshifted, the 300 µs steals are all missed; by the run's lag, all seen."""
    steals = logged_steals(steal_log([300, 1000] * 50), ORIGIN_NS, window_s=10.0)
    end, length = measured(steals, 1.0, np.random.default_rng(3))
    end = end + MATCH_S - 20e-6
    assert np.isnan(covering_gaps(steals, end, length)[::2]).all()
    lag = run_lag(steals, end, length)
    assert lag == pytest.approx(MATCH_S - 20e-6 + 40e-6 - SWITCH_S / 2, abs=5e-6)  # + the gaps' own 20-60 µs
    assert np.isfinite(covering_gaps(steals + lag, end, length)).all()
    assert run_lag(steals, end[len(steals):], length[len(steals):]) == 0.0  # no gap near a steal: no lag


def test_a_measurement_ten_percent_short_fails_the_slope_check():
    steals = logged_steals(steal_log([300, 1000] * 100), ORIGIN_NS, window_s=10.0)
    gaps = covering_gaps(steals, *measured(steals, 0.9, np.random.default_rng(2)))
    fit = fit_gaps(steals[:, 1] - steals[:, 0], gaps)
    assert fit.slope == pytest.approx(0.9, abs=0.005) and fit.intercept_s == pytest.approx(SWITCH_S, abs=1e-6)
    check = slope_check(fit)
    assert check["ok"] is False and check["expected"] == 1.0
    assert slope_check(None)["ok"] is False


@pytest.mark.parametrize(("given", "lengths"), [
    ([300.0], (300.0, 600.0)),  # 2L at most half the period: 2L
    ([4000.0], (2000.0, 4000.0)),  # 2L over half the period: L/2
    ([1000.0, 300.0], (1000.0, 300.0)),
])
def test_one_length_gets_a_second_so_that_a_fit_is_possible(given, lengths):
    assert steal_lengths(given, 10000.0) == lengths
