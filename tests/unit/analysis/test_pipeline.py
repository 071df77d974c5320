"""The whole analysis of a synthetic campaign, checked against numpy on the stored samples."""
import numpy as np
import pyarrow.parquet as pq
import pytest

from tests.framework.campaigns import gated_campaign
from tests.framework.synthetic import heavy_tail, with_step, write_campaign, write_run
from xtalk.analysis.pipeline import Options, analyze
from xtalk.results.store import CampaignStore


def values(store, config):
    out = [pq.read_table(p, columns=["value"]).column(0).to_numpy()
           for p in sorted((store.path / "runs").glob(f"{config}-r[12]/samples.parquet"))]
    return np.concatenate(out).astype(np.float64)


def test_statistics_deadlines_outliers_and_gates(tmp_path):
    store = gated_campaign(tmp_path)
    res = analyze(store).result
    stats = {r["config_id"]: r for r in res["stats"]}
    for cid in ("solo", "same-core"):
        x = values(store, cid)
        row = stats[cid]
        assert row["n"] == len(x) == 10000 and row["runs"] == 2
        assert row["median"] == pytest.approx(np.median(x)) and row["p99"] == pytest.approx(np.percentile(x, 99))
        assert row["wcet"] == x.max() and row["wcet_ns"] == pytest.approx(x.max() / 2)
        dl = [d for d in res["deadlines"] if d["config_id"] == cid]
        assert [d["above"] for d in dl] == [int((x > 4000).sum()), int((x > 1500).sum())]
        top = [o for o in res["outliers"] if o["config_id"] == cid]
        assert [o["value"] for o in top] == sorted(x, reverse=True)[:5]
    verdicts = {v["config_id"]: v for v in res["verdicts"]}
    same, per_run = verdicts["same-core"], {r["run_id"]: r["median"] for r in res["stats_runs"]}
    expect = np.sqrt(per_run["same-core-r1"] * per_run["same-core-r2"] / per_run["solo-r1"] / per_run["solo-r2"])
    assert same["baseline"] == "solo" and same["design"] == "runs" and same["statistic"] == "median"
    assert same["change_pct"] == pytest.approx((expect - 1) * 100)
    # two runs against two: an exact test cannot reach p < 0.01 whatever the change; Welch's t-test decides
    assert same["test"] == "Welch's t-test" and same["verdict"] == "interference", same["sentence"]
    assert same["ci95_pct"][0] > 0 and "by Welch's t-test (2 vs 2 runs)" in same["sentence"]
    assert verdicts["solo"]["verdict"] == "baseline"
    assert [g["passed"] for g in res["gates"]] == [True, False]
    assert res["overall"] == "FAIL" and any("FAIL" in g for g in same["gates"])
    assert any(w["level"] == "error" and w["scope"] == "same-core-r3" for w in res["warnings"])
    ramp = {r["run_id"]: r for r in res["rampup"]}
    assert ramp["solo-r1"]["significant"] and 150 <= ramp["solo-r1"]["warmup_n"] <= 450
    assert not ramp["solo-r2"]["significant"]


def test_exclude_rampup_drops_only_the_detected_ramp(tmp_path):
    store = gated_campaign(tmp_path)
    res = analyze(store, Options(exclude_rampup=True)).result
    (skipped,) = res["rampup_excluded"].items()
    assert skipped[0] == "solo-r1/m"
    by_run = {r["run_id"]: r["n"] for r in res["stats_runs"]}
    assert by_run["solo-r1"] == 5000 - skipped[1] and by_run["solo-r2"] == 5000


def test_timeline_campaign_gets_segments_and_change_points(tmp_path):
    n = 30000
    events = [{"at_sample": 10000, "action": "start", "target": "thrash"},
              {"at_sample": 20000, "action": "stop", "target": "thrash"}]
    path = write_campaign(tmp_path / "t", "tl", {}, ["other-core-r1"])
    write_run(path, "other-core-r1", {"placement": "other-core"}, n,
              with_step(heavy_tail(1150, 50), 10000, 20000, 1.3), events=events)
    res = analyze(CampaignStore(path)).result
    (tl,) = res["timelines"]
    assert [s["label"] for s in tl["segments"]] == ["before", "thrash on", "after"]
    assert tl["segments"][1]["change_pct"] == pytest.approx(30, abs=3)
    assert tl["detected"] == 2
    (v,) = res["verdicts"]
    assert v["design"] == "paired" and v["change_pct"] == pytest.approx(30, abs=3)
    assert v["verdict"] == "inconclusive" and v["units"] == [1, 1]  # one on-window: no test possible


def test_two_metrics_in_one_run_no_clock_and_warmup(tmp_path):
    path = write_campaign(tmp_path / "mm", "mm", {}, ["solo-r1"])
    write_run(path, "solo-r1", {"placement": "solo"}, 4000, heavy_tail(1000, 100), metric=("rd", "wr"),
              clock=False)
    store = CampaignStore(path)
    res = analyze(store).result
    values = pq.read_table(path / "runs/solo-r1/samples.parquet").to_pydict()
    for name in ("rd", "wr"):
        x = np.array([v for v, m in zip(values["value"], values["metric"]) if m == name], dtype=float)
        (row,) = [r for r in res["stats"] if r["metric"] == name]
        assert row["n"] == 2000 and row["median"] == pytest.approx(np.median(x)) and row["max"] == x.max()
    assert res["timelines"] == [] and res["outliers"][0]["t_s"] is None
    assert {v["verdict"] for v in res["verdicts"]} == {"baseline"}
    assert {v["verdict"] for v in res["stability"]} == {"not assessed"}


def test_no_passing_run_is_reported_not_crashed(tmp_path):
    path = write_campaign(tmp_path / "f", "f", {"gates": [{"metric": "m", "stat": "median", "max_ns": 1}]},
                          ["solo-r1"])
    write_run(path, "solo-r1", {"placement": "solo"}, 100, heavy_tail(), status="error",
              extra_meta={"reason": "qemu died"})
    res = analyze(CampaignStore(path)).result
    assert res["stats"] == [] and res["gates"] == [] and res["overall"] == "NOT EVALUATED"
    assert any("qemu died" in w["message"] for w in res["warnings"])
