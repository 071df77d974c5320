"""Before a campaign, a measurer that plans more samples a second than the results' file system
takes is named (running/ingest_check.py); a bench paced by nothing, or slowly, is not checked."""
from pathlib import Path
from types import SimpleNamespace

from xtalk.results import write_rate
from xtalk.running.ingest_check import ingest_warnings, planned_rate
from xtalk.spec.plan import GuestPlan


def measurer(bench, params, cpus=(0,)):
    return GuestPlan("measurer", "measurer", bench, params, cpus)


def test_the_planned_rate_comes_from_the_bench_s_pace_or_its_default():
    assert planned_rate(measurer("timer_latency", {})) == 1000.0  # period_us = 1000 by default
    assert planned_rate(measurer("timer_latency", {"period_us": 0.5})) == 2e6
    assert planned_rate(measurer("ring_flood", {"rate": 36_000_000})) == 36e6
    assert planned_rate(measurer("ring_flood", {})) is None  # rate = 0: as fast as it can, no plan
    assert planned_rate(measurer("qsort", {})) is None and planned_rate(measurer("no_such_bench", {})) is None


def test_a_rate_beyond_the_file_system_is_named_and_a_slow_one_measures_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(write_rate, "PROBE_BYTES", 1 << 20)
    monkeypatch.setattr(write_rate, "_measured", {})
    slow = SimpleNamespace(config_id="slow", measurer=measurer("timer_latency", {}))
    assert ingest_warnings([slow], tmp_path) == [] and write_rate._measured == {}
    flood = SimpleNamespace(config_id="flood", measurer=measurer("ring_flood", {"rate": 10 ** 13}))
    [line] = ingest_warnings([slow, flood], tmp_path)
    assert line.startswith("flood: the measurer (ring_flood) plans 1e+07 M samples/s, more than the file system of "
                           f"{tmp_path} takes here (") and "lost (counted and shown per run)" in line
    assert ("in memory already" in line) == write_rate.in_memory(tmp_path)


def test_a_directory_on_tmpfs_is_in_memory_and_another_is_not():
    assert write_rate.in_memory(Path("/dev/shm/not-made-yet")) and not write_rate.in_memory(Path("/proc/self"))


def test_a_results_directory_that_takes_no_file_is_left_to_the_campaign_to_refuse(tmp_path, monkeypatch):
    monkeypatch.setattr(write_rate, "_measured", {})
    flood = SimpleNamespace(config_id="flood", measurer=measurer("ring_flood", {"rate": 10 ** 13}))
    assert ingest_warnings([flood], Path("/proc/self/out")) == []  # procfs takes no file
