"""The channel rows of a study's campaign (analysis/interference.py): a multiplier with its
interval for ratio statistics, points for shares, the pressure as a share of the stressor's
reach alone, the runs behind each row, and every channel not tested with its reason."""
from __future__ import annotations

import pytest

from xtalk.analysis.interference import channel_rows

STUDY = {"kind": "channels", "plan": [
    {"name": "llc", "channel": "llc", "title": "last-level cache", "tested": True, "reason": None,
     "stressor": {"bench": "cache_thrash", "params": {"size": "llc*0.75"}, "hash": "h"},
     "reach": {"rate": 2e10, "unit": "bytes/s"}},
    {"name": "interconnect", "channel": "interconnect", "title": "on-chip interconnect", "tested": False,
     "reason": "no stressor"}]}


def verdict(config_id: str, stressor: str | None, **kw) -> dict:
    return {"config_id": config_id, "config": {"placement": "other-core", "stressor": stressor}, "metric": "qsort",
            "baseline": "solo", "verdict": "interference", "better": "lower", **kw}


RUNS = [{"run_id": f"{c}-r{i}", "config_id": c, "status": "pass",
         "pressure": {"llc": {"rate": 1e10, "unit": "bytes/s"}} if c != "solo" else {}}
        for c in ("solo", "oc") for i in (1, 2)]


def test_a_ratio_statistic_gives_a_multiplier_and_the_runs_behind_it():
    (row, untested) = channel_rows(STUDY, [verdict("oc", "llc", scale="log", change_pct=25.0,
                                                   ci95_pct=[10.0, 40.0])], RUNS)
    assert row["multiplier"] == pytest.approx(1.25) and row["multiplier_ci"] == pytest.approx([1.1, 1.4])
    assert row["runs"] == ["oc-r1", "oc-r2"] and row["baseline_runs"] == ["solo-r1", "solo-r2"]
    assert row["pressure"]["rate"] == 1e10 and row["pressure"]["of_alone"] == pytest.approx(0.5)
    assert (untested["channel"], untested["tested"], untested["reason"]) == ("interconnect", False, "no stressor")


def test_a_share_gives_points_not_a_multiplier():
    (row, _) = channel_rows(STUDY, [verdict("oc", "llc", scale="diff", stat_unit="share", change=0.3,
                                            ci95=[0.25, 0.35])], RUNS)
    assert row["multiplier"] is None and row["change"] == pytest.approx(30.0)
    assert row["change_ci"] == pytest.approx([25.0, 35.0]) and row["change_unit"] == "points"


def test_a_campaign_without_a_study_has_no_rows_and_other_configurations_are_not_channels():
    assert channel_rows(None, [verdict("oc", "llc", scale="log", change_pct=1.0)], RUNS) == []
    rows = channel_rows(STUDY, [verdict("x", None, scale="log", change_pct=1.0)], RUNS)
    assert [r["channel"] for r in rows] == ["interconnect"]


def test_a_row_gives_the_stressors_sizes_with_their_source_and_the_table_shows_them():
    from xtalk.report.interference import stressor_text
    sized = [dict(r, sizes={"stressors.llc.params.size": {"text": "llc*0.75", "bytes": 12 << 20,
                                                          "source": "measured"},
                            "measurer.params.size": {"text": "l2*4", "bytes": 4 << 20, "source": "measured"}})
             for r in RUNS]
    (row, _) = channel_rows(STUDY, [verdict("oc", "llc", scale="log", change_pct=25.0, ci95_pct=[10.0, 40.0])],
                            sized)
    assert row["sizes"] == {"size": {"text": "llc*0.75", "bytes": 12 << 20, "source": "measured"}}
    assert stressor_text(row["stressor"], row["sizes"]) == "cache_thrash(size=llc*0.75 = 12 MiB, measured)"
    assert stressor_text(row["stressor"]) == "cache_thrash(size=llc*0.75)"


def test_a_latency_metrics_p99_is_its_primary_statistic_and_still_fills_the_p99_columns():
    primary = verdict("oc", "llc", scale="log", change_pct=50.0, ci95_pct=[20.0, 80.0], statistic="p99",
                      stat_unit="ticks", value=3000.0, reference_value=2000.0, metric_unit="cycles", ns_per_tick=0.5,
                      secondary=[{"statistic": "max", "stat_unit": "ticks", "value": 9000.0,
                                  "reference_value": 4000.0}])
    (row, _) = channel_rows(STUDY, [primary], RUNS)
    assert (row["p99_alone_ns"], row["p99_ns"]) == (1000.0, 1500.0)
    assert (row["max_alone_ns"], row["max_ns"]) == (2000.0, 4500.0)


def test_a_size_the_study_cut_is_shown_in_binary_units_with_why():
    from xtalk.report.interference import stressor_text
    stressor = {"bench": "memcpy", "params": {"size": 1 << 30}}
    sizes = {"size": {"text": str(1 << 30), "bytes": 1 << 30}}
    why = "sized down: size=llc*2 = 4 GiB to 1 GiB, as a probe guest's buffers take at most 2 GiB together"
    assert stressor_text(stressor, sizes, why) == f"memcpy(size=1 GiB) ({why})"
    assert stressor_text(stressor) == f"memcpy(size={1 << 30})"  # no run recorded it as a size
