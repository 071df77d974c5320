"""analysis/measurability.py: the verdict of whether the machine could answer, from runs'
noise records, the reference's run values of the statistic its verdicts judge, deadlines
missed alone and host facts."""
from __future__ import annotations

from xtalk.analysis.effects import Rules
from xtalk.analysis.kinds import MEDIAN, STOLEN
from xtalk.analysis.measurability import assess, word_undecided

REF = {"cfg_solo": "cfg_solo", "cfg_same": "cfg_solo"}


def run(foreign_pct: float, busiest: list[dict] | None = None, cpu: int = 0) -> dict:
    return {"measurer": {"cpus": [cpu]}, "guests": {"measurer": {"sched": "other"}},
            "noise": {"wall_s": 1.0, "cpus": {str(cpu): {"foreign_pct": foreign_pct}, "1": {"foreign_pct": 0.0}},
                      "busiest": busiest or []}}


def medians(config: str, values: list[float], metric: str = "timer") -> dict:
    return {(config, metric): (values, MEDIAN)}


STEADY = medians("cfg_solo", [100, 101, 99, 100, 100.5])
RULES = Rules()


def test_a_spinner_on_the_measured_cpu_cannot_measure_and_is_named_with_its_pid():
    hog = [{"pid": 4242, "command": "stress-ng", "cpu_s": 0.6, "pct": 60.0}]
    m = assess({}, [run(47, hog), run(60, hog), run(78, hog)], STEADY, [], REF, RULES)
    assert m["state"] == "cannot"
    assert "cannot measure here" in m["text"] and "CPU 0 ran other work 47-78 %" in m["text"]
    assert "PID 4242 (stress-ng" in m["text"] and "more runs will not help" in m["text"]
    assert m["busiest"] == [{"pid": 4242, "command": "stress-ng", "pct": 60.0}]


def test_free_cpus_and_a_steady_reference_are_measurable():
    m = assess({}, [run(0.5), run(1.0)], STEADY, [], REF, RULES)
    assert m["state"] == "measurable" and m["text"].startswith("measurable: CPU 0 free")
    assert "±0.7" in m["text"], m["text"]


def test_some_other_work_is_doubtful_not_cannot():
    assert assess({}, [run(8), run(12)], STEADY, [], REF, RULES)["state"] == "doubtful"


def test_a_reference_that_varies_by_a_third_run_to_run_cannot_answer_even_on_free_cpus():
    m = assess({}, [run(0.5)], medians("cfg_solo", [100, 160, 70, 130]), [], REF, RULES)
    assert m["state"] == "cannot" and "cfg_solo's timer varies" in m["text"], m


def test_a_reference_too_noisy_for_the_negligible_change_is_doubtful():
    m = assess({}, [run(0.5)], medians("cfg_solo", [100, 125, 82, 112, 90]), [], REF, RULES)
    assert m["state"] == "doubtful" and "under ±5 %" in m["text"], m
    assert assess({}, [run(0.5)], medians("cfg_solo", [100, 125, 82, 112, 90]), [], REF, Rules(negligible_pct=50.0))["state"] == \
        "measurable"


def test_a_deadline_missed_alone_cannot_be_judged_but_one_missed_next_to_a_neighbour_can():
    alone = {"config_id": "cfg_solo", "metric": "timer", "deadline": 100000, "unit": "ns", "n": 1000, "rate": 0.3}
    beside = dict(alone, config_id="cfg_same")
    m = assess({}, [run(0.5)], STEADY, [alone, beside], REF, RULES)
    assert m["state"] == "cannot" and "misses its 100 µs deadline alone (cfg_solo: 30 %" in m["text"], m
    assert assess({}, [run(0.5)], STEADY, [beside], REF, RULES)["state"] == "measurable"


def test_a_host_that_is_a_virtual_machine_is_a_caveat_and_rt_throttling_of_spinners_is_doubtful():
    nested = assess({"kvm": {"kind": "kvm_pvm"}}, [run(0.5)], STEADY, [], REF, RULES)
    assert nested["state"] == "measurable" and "itself a virtual machine" in nested["text"]
    fifo = [dict(run(0.5), guests={"measurer": {"sched": "fifo"}})]
    throttled = {"isolation": {"rt_runtime_us": 950000, "rt_period_us": 1000000}}
    m = assess(throttled, fifo, STEADY, [], REF, RULES)
    assert m["state"] == "doubtful" and "sched_rt_runtime_us=-1" in m["text"], m


def test_imported_logs_are_unchecked():
    assert assess({}, [{"measurer": {"cpus": [0]}}], {}, [], REF, RULES)["state"] == "unchecked"


def test_undecided_rows_stop_asking_for_runs_only_where_the_machine_cannot_answer():
    rows = [{"verdict": "inconclusive", "reason": "wide", "need_units": 517}, {"verdict": "interference"}]
    said = word_undecided(rows, {"state": "cannot"})
    assert said[0]["need_units"] is None and "more runs will not help" in said[0]["reason"]
    assert said[1] == rows[1] and word_undecided(rows, {"state": "doubtful"}) == rows


def test_a_stolen_share_is_judged_in_points_not_by_its_relative_spread():
    """A quiet reference steals 0.1-0.5 % of the CPU: five times apart as ratios (its gaps'
    median varied ±208 % in a 2-run campaign and read "cannot"), within half a point."""
    quiet = {("cfg_solo", "gap"): ([0.001, 0.005, 0.002, 0.003, 0.001], STOLEN)}
    m = assess({}, [run(0.5)], quiet, [], REF, RULES)
    assert m["state"] == "measurable" and "gap (stolen time) steady (±0.167 points run to run)" in m["text"], m
    wild = {("cfg_solo", "gap"): ([0.05, 0.40, 0.10, 0.35], STOLEN)}
    m = assess({}, [run(0.5)], wild, [], REF, RULES)
    assert m["state"] == "cannot" and "gap (stolen time) varies ±17.6 points run to run (4 runs)" in m["text"], m


def test_a_reference_that_cannot_answer_voids_its_own_metric_only():
    """The quickstart on this host: the solo pointer chase varied ±159 % (the host's L3
    sharing moved) while qsort's stayed steady; qsort's answers stand."""
    units = medians("cfg_solo", [16.0, 98.0, 20.0, 95.0, 17.0], "chase") | medians("cfg_solo", [43.0, 43.5, 42.8], "qsort")
    m = assess({}, [run(0.5)], units, [], REF, RULES)
    assert m["state"] == "cannot" and m["text"].startswith("cannot measure chase here: cfg_solo's chase varies"), m
    assert m["cannot_metrics"] == ["chase"]
    rows = [{"metric": "chase", "verdict": "inconclusive", "need_units": 40},
            {"metric": "qsort", "verdict": "inconclusive", "need_units": 8}]
    said = word_undecided(rows, m)
    assert said[0]["need_units"] is None and said[1] == rows[1]
    busy = assess({}, [run(60.0)], units, [], REF, RULES)  # other work on the measured CPU: every metric
    assert busy["cannot_metrics"] == [] and all(r["need_units"] is None for r in word_undecided(rows, busy))
