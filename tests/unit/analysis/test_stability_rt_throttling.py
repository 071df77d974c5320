"""The real-time throttling doubt (analysis/stability.py): a campaign whose workloads ran
FIFO or RR on a kernel that gives real-time tasks less than the whole period is told how
much of each period a spinning workload can lose; no doubt without real-time workloads,
without a limit, or where the host did not say. Paired windows whose kept length is not a
whole number of throttle periods are a warning that names the windows that would be."""
import pytest

from xtalk.analysis.stability import noise_flags, paired_throttle_warnings
from xtalk.host.metadata import rt_throttling


def _flags(runtime, period, *scheds) -> list[str]:
    host = {"isolation": {"isolcpus": "1", "nohz_full": "1", "rt_runtime_us": runtime, "rt_period_us": period}}
    runs = [{"run_id": f"r{i}", "guests": {"measurer": {"sched": s}}} for i, s in enumerate(scheds)]
    return [f for f in noise_flags(host, runs) if "throttling" in f]


def test_a_fifo_workload_is_told_the_block_it_can_lose_each_period():
    (flag,) = _flags(950_000, 1_000_000, "fifo", "other")
    assert flag.startswith("real-time throttling: the kernel lets FIFO tasks run 950,000 µs of every 1,000,000 µs")
    assert "loses up to 50 ms each 1000 ms" in flag and "kernel.sched_rt_runtime_us=-1" in flag


@pytest.mark.parametrize("runtime, period, scheds", [
    (-1, 1_000_000, ("fifo",)),            # no limit
    (1_000_000, 1_000_000, ("rr",)),       # the whole period
    (950_000, 1_000_000, ("other",)),      # nothing real-time ran
    (None, None, ("fifo",)),               # the host did not say (an older campaign)
])
def test_no_doubt_where_nothing_is_throttled(runtime, period, scheds):
    assert _flags(runtime, period, *scheds) == []


def test_this_kernel_says_its_budget_as_numbers():
    got = rt_throttling()
    assert set(got) == {"rt_runtime_us", "rt_period_us"}
    assert all(v is None or isinstance(v, int) for v in got.values())
    assert got["rt_period_us"] is None or got["rt_period_us"] > 0


def test_the_report_shows_it_as_a_doubt_of_its_own_not_folded_into_the_host():
    from xtalk.report.answer import doubts
    host_flags = ["no nohz_full: the scheduler tick interrupts the measured CPU"]
    (flag,) = _flags(950_000, 1_000_000, "fifo")
    got = {d.title: d for d in doubts({"verdicts": [], "warnings": [], "runs": [{}], "spec": {"cpus": [0, 1]},
                                       "noise_flags": [*host_flags, flag]})}
    assert got["real-time throttling: a workload that spins loses up to 50 ms each 1000 ms"].items == [flag]
    assert got["the host itself"].items == host_flags


def _paired(paired, runtime=950_000, period=1_000_000, sched="fifo") -> list[dict]:
    host = {"isolation": {"rt_runtime_us": runtime, "rt_period_us": period}}
    return paired_throttle_warnings(host, [{"run_id": "r0", "guests": {"measurer": {"sched": sched}}}], paired)


def test_paired_windows_that_split_the_throttles_periods_are_a_warning_with_the_fix():
    (w,) = _paired({"off_s": 1.0, "on_s": 1.0})  # 10 % settling: 0.9 s kept of each
    assert w["level"] == "warning" and w["scope"] == "campaign"
    assert "keep 0.9 s off, 0.9 s on, not a whole number of its 1 s periods" in w["message"]
    assert "a step of 5.56 % of the CPU in a window" in w["message"]  # 50 ms of 0.9 s
    assert w["message"].endswith("windows of 1.1 s with [paired] settle_s = 0.1 keep whole periods")
    (w,) = _paired({"off_s": 3.0, "on_s": 2.2, "settle_s": 0.2})  # the off-windows keep whole periods
    assert "keep 2.8 s off, not a whole number" in w["message"] and "windows of 3.3 s" in w["message"]


@pytest.mark.parametrize("paired, runtime, sched", [
    ({"off_s": 1.1, "on_s": 1.1, "settle_s": 0.1}, 950_000, "fifo"),  # whole seconds kept
    ({"off_s": 2.0, "on_s": 2.0, "settle_s": 0.0}, 950_000, "rr"),
    ({"off_s": 1.0, "on_s": 1.0}, -1, "fifo"),                          # nothing throttled
    ({"off_s": 1.0, "on_s": 1.0}, 950_000, "other"),                    # no real-time workload
    (None, 950_000, "fifo"),                                            # not a paired campaign
])
def test_no_paired_warning_where_the_throttle_cannot_split_a_window(paired, runtime, sched):
    assert _paired(paired, runtime=runtime, sched=sched) == []


def test_the_report_groups_the_paired_warning_under_its_own_title():
    from xtalk.report.answer import doubts
    (w,) = _paired({"off_s": 1.0, "on_s": 1.0})
    (got,) = doubts({"verdicts": [], "warnings": [w], "runs": [{}], "spec": {"cpus": [0]}, "noise_flags": []})
    assert got.title == "paired windows that split the real-time throttle's periods" and got.level == "warning"
