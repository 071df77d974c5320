"""Two campaigns compared (analysis/comparison.py) whose hosts were loaded differently: a
real 30 % slow-down is "different" when both hosts were equally quiet, and is not told as
the system's when the measured CPU of one side spent much more of its runs on other work;
the loads are in each row either way."""
import pytest

from tests.framework.synthetic import heavy_tail, write_campaign, write_run
from xtalk.analysis.comparison import Group, compare_campaigns
from xtalk.analysis.host_load import load_difference, measured_cpu_load
from xtalk.analysis.pipeline import Options, analyze
from xtalk.results.store import CampaignStore


def run_meta(foreign_pct: float) -> dict:
    return {"measurer": {"bench": "qsort", "cpus": [0]},
            "noise": {"cpus": {"0": {"foreign_pct": foreign_pct}, "1": {"foreign_pct": 90.0}}}}


def campaign(tmp_path, name: str, factor: float, foreign_pct: float):
    ids = [f"solo-r{i}" for i in range(5)]
    path = write_campaign(tmp_path / name, "aa", {"matrix": {"placement": ["solo"]}}, ids)
    for i, rid in enumerate(ids):
        write_run(path, rid, {"placement": "solo"}, 2000, heavy_tail(1000 * factor, 100 * factor), metric="work",
                  seed=i + (100 if factor != 1 else 0), index=i, extra_meta=run_meta(foreign_pct))
    return analyze(CampaignStore(path), Options(evt=False, extras=False))


@pytest.mark.parametrize("load_b, verdict", [(12.0, "different"), (60.0, "inconclusive")])
def test_a_difference_between_campaigns_is_not_told_as_the_systems_when_the_hosts_were_loaded_differently(
        tmp_path, load_b, verdict):
    (row,) = compare_campaigns(Group([campaign(tmp_path, "a", 1.0, 10.0)]), Group([campaign(tmp_path, "b", 1.3, load_b)]))["rows"]
    assert row["change_pct"] == pytest.approx(30, abs=3) and row["p_value"] < 0.01
    assert row["verdict"] == verdict, row["sentence"]
    assert row["host_load"]["a_pct"] == 10.0 and row["host_load"]["b_pct"] == load_b
    assert ("host's own load on the measured CPU" in row["sentence"]) == (verdict == "inconclusive")


def test_the_load_is_the_measured_cpus_not_another_and_unknown_where_not_recorded():
    assert measured_cpu_load([run_meta(5.0), run_meta(7.0), run_meta(30.0)]) == 7.0  # CPU 1's 90 % is not it
    assert measured_cpu_load([{"measurer": {"cpus": [0]}}]) is None
    assert load_difference([run_meta(5.0)], [{}]) is None
    assert load_difference([run_meta(5.0)], [run_meta(14.0)])["confounded"] is False
