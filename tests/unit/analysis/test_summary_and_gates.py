"""Statistics in DuckDB checked against numpy/scipy on heavy-tailed data with ties."""
import numpy as np
import pytest
import scipy.stats

from tests.unit.results.test_store import meta, new_store, samples
from xtalk.analysis.gates import evaluate
from xtalk.analysis.summary import config_stats
from xtalk.results.query import connect
from xtalk.spec.model import Gate


def store_with(tmp_path, data: dict[str, np.ndarray]):
    store = new_store(tmp_path, runs=[f"{c}-r1" for c in data])
    for i, (config, values) in enumerate(data.items()):
        w = store.start_run(dict(meta(f"{config}-r1"), index=i))
        w.save_meta(freq_hz=2e9, metrics={"0": {"name": "m", "unit": "cycles"}})
        w.samples(samples(values))
        w.finish("pass")
    return connect(store)


def test_config_stats_match_numpy_and_scipy(tmp_path):
    rng = np.random.default_rng(1)
    heavy = (rng.pareto(2.5, 5000) * 1000 + 1000).astype(np.uint64)
    heavy[:500] = 1500  # ties
    con = store_with(tmp_path, {"solo": heavy})
    (row,) = config_stats(con)
    x = heavy.astype(float)
    assert row["n"] == 5000 and row["min"] == x.min() and row["max"] == x.max()
    for key, q in (("q1", 25), ("median", 50), ("q3", 75), ("p99", 99), ("p999", 99.9)):
        assert row[key] == pytest.approx(np.percentile(x, q), rel=1e-9)
    assert row["mean"] == pytest.approx(x.mean()) and row["sd"] == pytest.approx(x.std(ddof=1))
    assert row["skew"] == pytest.approx(scipy.stats.skew(x, bias=False), rel=1e-6)
    assert row["kurtosis"] == pytest.approx(scipy.stats.kurtosis(x, bias=False), rel=1e-6)
    assert row["ns_per_tick"] == pytest.approx(0.5)


def test_gates_relative_absolute_and_missing(tmp_path):
    con = store_with(tmp_path, {"solo": np.full(100, 1000, np.uint64), "same-core": np.full(100, 1300, np.uint64)})
    results = evaluate(con, [
        Gate(metric="m", max_increase_pct=50),
        Gate(metric="m", max_increase_pct=10),
        Gate(metric="m", stat="max", max_ns=600),
        Gate(metric="absent", max_cycles=1),
    ])
    assert [r["passed"] for r in results] == [True, False, False, False]
    assert results[0]["change_pct"] == pytest.approx(30.0)
    assert "650 ns" in results[2]["detail"]
    assert "no samples" in results[3]["detail"]
