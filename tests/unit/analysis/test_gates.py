"""Gates judged on the analysis's per-configuration statistics (the same numbers the
report, `xtalk run` and `xtalk show` use), checked on a stored campaign."""
import numpy as np
import pytest

from tests.framework.store_data import meta, new_store, samples
from xtalk.analysis.pipeline import Options, analyze
from xtalk.spec.model import Gate
from xtalk.analysis.gates import evaluate


def store_with(tmp_path, data: dict[str, np.ndarray]):
    store = new_store(tmp_path, runs=[f"{c}-r1" for c in data])
    for i, (config, values) in enumerate(data.items()):
        w = store.start_run(dict(meta(f"{config}-r1"), index=i))
        w.save_meta(freq_hz=2e9, metrics={"0": {"name": "m", "unit": "cycles", "kind": "duration"}})
        w.samples(samples(values))
        w.finish("pass")
    return store


def test_gates_relative_absolute_and_missing(tmp_path):
    store = store_with(tmp_path, {"solo": np.full(100, 1000, np.uint64), "same-core": np.full(100, 1300, np.uint64)})
    res = analyze(store, Options(evt=False, extras=False)).result
    results = evaluate([
        Gate(metric="m", max_increase_pct=50),
        Gate(metric="m", max_increase_pct=10),
        Gate(metric="m", stat="max", max_ns=600),
        Gate(metric="absent", max_cycles=1),
    ], res["stats"], res["configs"])
    assert [r["passed"] for r in results] == [True, False, False, False]
    assert results[0]["change_pct"] == pytest.approx(30.0)
    assert "650 ns" in results[2]["detail"]
    assert "no samples" in results[3]["detail"]
