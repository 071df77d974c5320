"""Change points near known steps, warm-up detection, timeline segments."""
import numpy as np
import pytest

from xtalk.analysis import changepoints
from xtalk.analysis.accum import Stream


def stream_of(values, t=None, cuts=None):
    s = Stream("r1", "m", 1e9, 1, cuts=cuts)
    t = np.arange(len(values)) * 0.01 if t is None else t
    s.add(np.asarray(values, dtype=np.uint64), np.asarray(t, dtype=np.float64))
    return s


@pytest.mark.parametrize("seed", range(5))
def test_binseg_finds_known_steps(seed):
    rng = np.random.default_rng(seed)
    y = np.concatenate([rng.normal(100, 2, 60), rng.normal(115, 2, 50), rng.normal(100, 2, 70)])
    cps = changepoints.binseg(y)
    assert any(abs(c - 60) <= 2 for c in cps) and any(abs(c - 110) <= 2 for c in cps)
    assert len(cps) <= 4
    assert changepoints.binseg(rng.normal(100, 2, 180)) == [] or len(changepoints.binseg(rng.normal(100, 2, 180))) <= 1


def test_warmup_is_detected_and_stationary_data_is_not_flagged():
    rng = np.random.default_rng(1)
    ramp = np.concatenate([np.linspace(16e6, 10.6e6, 300), np.full(2700, 10.6e6)]) + rng.normal(0, 2e4, 3000)
    r = changepoints.rampup(stream_of(ramp), float(np.median(ramp)))
    assert r["significant"] and 150 <= r["warmup_n"] <= 450
    assert r["first_vs_median_pct"] == pytest.approx((np.median(ramp) - ramp[0]) / np.median(ramp) * 100, rel=1e-3)
    flat = rng.normal(6.59e6, 2e3, 3000)
    assert not changepoints.rampup(stream_of(flat), float(np.median(flat)))["significant"]


def test_timeline_before_during_after_and_detected_change_points():
    rng = np.random.default_rng(2)
    n = 6000
    t = np.arange(n) * 0.003  # 18 s
    v = rng.normal(24.6e6, 4e5, n)
    during = (t >= 6) & (t < 12)
    v[during] *= 1.47
    events = [{"t_s": 6.0, "action": "start", "target": "thrash"}, {"t_s": 12.0, "action": "stop", "target": "thrash"}]
    s = stream_of(v, t, cuts=(6.0, 12.0))
    tl = changepoints.timeline([s], {"r1": events}, "cycles")
    labels = [seg["label"] for seg in tl["segments"]]
    assert labels == ["before", "thrash on", "after"]
    meds = [seg["median"] for seg in tl["segments"]]
    assert meds[0] == pytest.approx(np.median(v[t < 6]))
    assert meds[1] == pytest.approx(np.median(v[during]))
    assert tl["segments"][1]["change_pct"] == pytest.approx(47, abs=1.5)
    assert abs(tl["segments"][2]["change_pct"]) < 1
    assert tl["detected"] == 2
    assert all(abs(x["distance_s"]) <= 0.1 for x in tl["transitions"])
