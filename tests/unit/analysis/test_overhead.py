"""Overhead against the bare machine on synthetic campaigns: a known slow-down of the guest
is found with its size; the same timing counted by clocks of different rates is not called
overhead; a configuration without a native twin says so."""
import pytest

from tests.framework.campaigns import GUEST_HZ, NATIVE_HZ, overhead_campaign
from tests.framework.synthetic import heavy_tail, write_campaign, write_run
from xtalk.analysis.pipeline import Options, analyze
from xtalk.results.store import CampaignStore


def campaign(tmp_path, factor: float, runs: int = 5, extra: bool = False) -> dict:
    """The analysis of overhead_campaign (tests/framework/campaigns.py)."""
    return analyze(overhead_campaign(tmp_path, factor, runs, extra), Options(evt=False, extras=False)).result


def rows(res: dict) -> dict:
    return {(v["config_id"], v["metric"]): v for v in res["overhead"]}


def test_a_known_slowdown_of_the_guest_is_overhead_with_its_size(tmp_path):
    found = rows(campaign(tmp_path, 1.3))
    assert set(found) == {(c, m) for c in ("native-solo", "qemu-solo") for m in ("work", "copy")}
    for metric in ("work", "copy"):
        base, guest = found["native-solo", metric], found["qemu-solo", metric]
        assert base["verdict"] == "baseline" and base["value"] == pytest.approx(guest["reference_value"])
        assert guest["verdict"] == "overhead" and guest["backend"] == "qemu" and guest["baseline"] == "native-solo"
        assert guest["change_pct"] == pytest.approx(30, abs=1.5) and guest["ci95_pct"][0] > 25
        assert guest["p_value"] < 0.01 and guest["units"] == [5, 5] and guest["noise_floor_pct"] < 5
        assert 1000 < guest["value"] / 1.3 < 1400 and guest["ns_per_tick"] == 1.0  # in ns, not in ticks
        assert "qemu-solo against native-solo" in guest["sentence"] and guest["sentence"].endswith(": overhead.")


def test_equal_timing_in_clocks_of_different_rates_is_no_overhead(tmp_path):
    res = campaign(tmp_path, 1.0)
    guest = rows(res)["qemu-solo", "work"]
    assert guest["verdict"] == "no-overhead" and abs(guest["change_pct"]) < 1, guest["sentence"]
    assert "no overhead (within ±" in guest["sentence"]
    ticks = {v["config_id"]: v["value"] for v in res["verdicts"] if v["metric"] == "work"}
    assert ticks["native-solo"] == pytest.approx(2 * ticks["qemu-solo"], rel=0.02)  # the ticks differ twice


def test_too_few_runs_and_no_native_twin_are_inconclusive_with_the_reason(tmp_path):
    found = rows(campaign(tmp_path, 1.3, runs=1, extra=True))
    few, alone = found["qemu-solo", "work"], found["qemu-same-core", "work"]
    assert few["verdict"] == "inconclusive" and "too few runs for a test" in few["reason"]
    assert alone["verdict"] == "inconclusive" and alone["baseline"] is None and "no native run" in alone["reason"]
    assert found["qemu-solo-pc", "work"]["baseline"] == "native-solo"


def test_three_runs_a_side_are_decided_by_welchs_t(tmp_path):
    """3 vs 3 runs: an exact test cannot reach 0.01, Welch's t-test finds the 30 % and says so."""
    found = rows(campaign(tmp_path, 1.3, runs=3))["qemu-solo", "work"]
    assert found["verdict"] == "overhead" and found["test"] == "Welch's t-test"
    assert "by Welch's t-test (3 vs 3 runs)" in found["sentence"]


def test_a_campaign_on_one_backend_has_no_overhead_section(tmp_path):
    path = write_campaign(tmp_path / "one", "one", {}, ["solo-r1"])
    write_run(path, "solo-r1", {"placement": "solo"}, 1000, heavy_tail())
    assert analyze(CampaignStore(path), Options(evt=False, extras=False)).result["overhead"] == []


def test_a_lower_rate_in_the_guest_is_overhead_in_its_own_unit(tmp_path):
    """A rate metric (a probe bench's rate case: MB/s, kind throughput) is compared as it
    is, whatever the clocks of the backends: 20 % less bandwidth in the guest is overhead
    (higher is better), and its value stays in MB/s, never converted as ticks."""
    spec = {"matrix": {"backend.kind": ["native", "qemu"], "placement": ["solo"]}}
    ids = [f"{kind}_solo-r{i}" for i in range(5) for kind in ("native", "qemu")]
    path = write_campaign(tmp_path / "rate", "rate", spec, ids)
    for i, rid in enumerate(ids):
        kind = rid.split("_")[0]
        hz, mbps = (NATIVE_HZ, 10_000) if kind == "native" else (GUEST_HZ, 8_000)
        write_run(path, rid, {"backend.kind": kind, "placement": "solo"}, 200, heavy_tail(mbps, mbps / 100),
                  metric="copy", unit="MB/s", kind="throughput", freq_hz=hz, seed=i, index=i)
    res = analyze(CampaignStore(path), Options(evt=False, extras=False)).result
    guest = rows(res)["qemu-solo", "copy"]
    assert guest["verdict"] == "overhead" and guest["change_pct"] == pytest.approx(-20, abs=2), guest["sentence"]
    assert 7_000 < guest["value"] < 9_000 and "MB/s" in guest["sentence"]
