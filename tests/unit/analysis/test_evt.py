"""pWCET: EVT recovers known GEV/GPD tails within tolerance and refuses non-i.i.d. data."""
import math

import numpy as np
import pytest
import scipy.stats as st

from xtalk.analysis import accum, evt
from xtalk.analysis.accum import Stream
from xtalk.analysis.kinds import metric_info

DURATION = metric_info("m", {"unit": "cycles", "kind": "duration"})


def stream_of(values, batch=50000):
    s = Stream("r1", "m", 1e9, accum.micro_block(len(values)))
    t = np.arange(len(values), dtype=np.float64)
    for i in range(0, len(values), batch):
        s.add(np.asarray(values[i:i + batch], dtype=np.uint64), t[i:i + batch])
    return s


def pooled(values):
    s = stream_of(values)
    return Stream.merged([s]), [s]


def test_gev_recovers_gumbel_tail():
    # maxima of Gumbel samples are Gumbel: GEV with xi = 0; true per-sample quantiles known
    loc, scale = 1e6, 2e4
    x = st.gumbel_r.rvs(loc=loc, scale=scale, size=200_000, random_state=1)
    p, runs = pooled(np.round(x))
    res = evt.pwcet(p, runs, DURATION)
    gev = res["gev"]
    assert gev["status"] == "ok", gev["reasons"]
    assert abs(gev["xi"]) < 0.1
    for prob, tol in ((1e-3, 0.01), (1e-6, 0.04), (1e-9, 0.1)):  # extrapolating 4 decades beyond the data
        true = st.gumbel_r.isf(prob, loc=loc, scale=scale)
        assert gev["pwcet"][str(prob)] == pytest.approx(true, rel=tol), prob
    assert res["status"] == "ok" and res["best"] == "gev"


def test_pot_recovers_gpd_tail():
    xi, scale = 0.2, 1000.0
    x = 1e5 + st.genpareto.rvs(xi, scale=scale, size=100_000, random_state=2)
    p, runs = pooled(np.round(x))
    pot = evt.fit_pot(p, runs)
    assert pot["status"] == "ok", pot["reasons"]
    assert pot["xi"] == pytest.approx(xi, abs=0.12)
    true = 1e5 + st.genpareto.isf(1e-6, xi, scale=scale)
    assert pot["pwcet"]["1e-06"] == pytest.approx(true, rel=0.35)
    true3 = 1e5 + st.genpareto.isf(1e-3, xi, scale=scale)
    assert pot["pwcet"]["0.001"] == pytest.approx(true3, rel=0.05)


def test_refuses_a_trend():
    x = st.gumbel_r.rvs(loc=1e6, scale=2e4, size=100_000, random_state=4) + np.linspace(0, 2e5, 100_000)
    res = evt.pwcet(*pooled(np.round(x)), DURATION)
    assert res["status"] == "refused"
    assert any("GEV: not identically distributed" in r for r in res["reasons"])
    assert any("POT: exceedances not spread uniformly" in r for r in res["reasons"])


def test_refuses_strong_autocorrelation():
    rng = np.random.default_rng(5)
    e = rng.normal(0, 1, 100_000)
    ar = np.empty_like(e)
    ar[0] = 0
    phi = 0.995
    for i in range(1, len(e)):  # AR(1), phi close to 1
        ar[i] = phi * ar[i - 1] + e[i]
    res = evt.pwcet(*pooled(np.round(1e6 + 1e3 * ar)), DURATION)
    assert res["status"] == "refused"
    assert any("not independent" in r for r in res["reasons"])


def test_refuses_too_few_samples():
    res = evt.pwcet(*pooled(np.arange(500) + 1000), DURATION)
    assert res["status"] == "refused" and "too few samples" in res["reasons"][0]


@pytest.mark.parametrize("declared, why", [({"unit": "count", "kind": "loss"}, "not a time"),
                                           ({"unit": "MB/s", "kind": "throughput"}, "not a time"),
                                           ({"unit": "cycles", "kind": "throughput"}, "lowest value")])
def test_no_pwcet_for_counts_rates_and_throughputs(declared, why):
    # a Gumbel tail that a time metric fits: skipped all the same, with the reason
    x = st.gumbel_r.rvs(loc=1e6, scale=2e4, size=20_000, random_state=1)
    res = evt.pwcet(*pooled(np.round(x)), metric_info("m", declared))
    assert res["status"] == "not applicable" and why in res["reasons"][0] and res["best"] is None


def test_iid_checks_on_iid_data_pass():
    x = st.norm.rvs(size=400, random_state=7)
    assert evt.iid_checks(x)["reasons"] == []
    assert math.isfinite(evt.ljung_box(x))
