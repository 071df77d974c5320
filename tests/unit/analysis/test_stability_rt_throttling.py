"""The real-time throttling doubt (analysis/stability.py): a campaign whose workloads ran
FIFO or RR on a kernel that gives real-time tasks less than the whole period is told how
much of each period a spinning workload can lose; no doubt without real-time workloads,
without a limit, or where the host did not say."""
import pytest

from xtalk.analysis.stability import noise_flags
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
