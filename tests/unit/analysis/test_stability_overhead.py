"""The measurement-overhead doubt (analysis/stability.py): the measurer's own timing cost,
in ticks, is told as a share of a time metric's median, never of a count's."""
from xtalk.analysis.stability import data_warnings


def _rows(metric: str, median: float, time: bool) -> tuple[list[dict], list[dict]]:
    row = {"config_id": "solo", "metric": metric, "n": 1000, "median": median, "runs": 1}
    if time:
        row["wcet"] = median * 3
    return [dict(row)], [dict(row, run_id="solo-r1")]


def _overhead_doubts(metric: str, median: float, time: bool) -> list[str]:
    per_config, per_run = _rows(metric, median, time)
    runs = [{"run_id": "solo-r1", "config_id": "solo", "guest_meta": {"overhead_cycles": 44}}]
    return [w["message"] for w in data_warnings(per_config, per_run, runs) if "overhead" in w["message"]]


def test_the_overhead_is_a_share_of_a_time_median():
    (message,) = _overhead_doubts("timer_latency", 1000, time=True)
    assert message.startswith("measurement overhead 44 ticks is 4.4% of the median")


def test_a_count_gets_no_overhead_share():
    assert _overhead_doubts("timer_missed", 7, time=False) == []  # it read '44 ticks is 628.6% of the median'
