"""The design check (xtalk.design): what a spec's runs can decide, and fixes that do."""
import platform
import re

import numpy as np
import pytest

from xtalk.analysis import power
from xtalk.design.check import MIN_DF, check_design
from xtalk.spec.plan import plan
from xtalk.spec.load import parse_campaign
from tests.framework.specs import NEWCOMER_SPEC as ON_OFF
from tests.framework.synthetic import heavy_tail, with_step, write_campaign, write_run

RUNS = """name = "runs"
[run]
duration_s = 2
repetitions = {reps}
[measurer]
bench = "qsort"
[[stressors]]
name = "thrash"
bench = "cache_thrash"
[matrix]
placement = ["solo", "other-core"]
"""


def design_of(text: str):
    spec, raw = parse_campaign(text, "spec.toml")
    return check_design(spec, raw, plan(spec, raw), text)


def row_of(design, config_id: str):
    return next(r for r in design.rows if r.config_id == config_id)


def test_the_newcomers_on_off_design_cannot_decide_and_the_fix_says_what_to_change():
    design = design_of(ON_OFF)
    row = row_of(design, "other-core")
    assert (row.design, row.units, row.decides) == ("windows", (3, 3), False)
    assert row.exact_min_p == power.min_p(3) and "2 df" in row.test
    (problem,) = design.problems
    assert problem.path == "run.repetitions" and problem.line == 7
    assert "3 runs per configuration of 1 on/off window each: 3 windows" in problem.message
    assert "no solo" not in problem.message and "[run] pilot = true" in problem.message
    assert "its own off-windows (the matrix has no placement=solo)" in row.reference


def test_each_fix_the_check_proposes_passes_it():
    message = design_of(ON_OFF).problems[0].message
    reps = int(re.search(r"use repetitions = (\d+)", message)[1])
    fixed = design_of(ON_OFF.replace("repetitions = 3", f"repetitions = {reps}"))
    assert not fixed.problems and row_of(fixed, "other-core").test == "exact sign-flip test"
    duration = re.search(r"\[paired\] \(off_s = 1, on_s = 1\) and run.duration_s = (\d+) \((\d+) windows a run, "
                         r"(\d+) in all\)", message)
    paired = ON_OFF[:ON_OFF.index("[[timeline]]")].replace("duration_s = 5", f"duration_s = {duration[1]}") + \
        "[paired]\noff_s = 1\non_s = 1\n"
    design = design_of(paired)
    row = row_of(design, "other-core")
    assert not design.problems and row.units[0] == int(duration[3]) == 3 * int(duration[2])
    assert row.exact_min_p < 0.01 and row.decides


@pytest.mark.parametrize("reps,decides,test", [(1, False, "no test"), (2, False, "Welch's t-test, 2 df: too few"),
                                               (3, True, "Welch's t-test, 4 df"), (5, True, "exact permutation")])
def test_runs_against_solo_decide_from_3_runs_with_the_t_test_and_5_with_the_exact_one(reps, decides, test):
    design = design_of(RUNS.format(reps=reps))
    row = row_of(design, "other-core")
    assert row.reference == "solo's runs" and row.units == (reps, reps)
    assert row.decides is decides and row.test.startswith(test), row.test
    assert row_of(design, "solo").design == "reference"
    assert bool(design.problems) is not decides
    if not decides:
        assert "use repetitions = 5 (5 against 5" in design.problems[0].message
        assert f"or at least {next(k for k in range(2, 6) if 2 * k - 2 >= MIN_DF)}" in design.problems[0].message


def test_the_detectable_change_shrinks_with_units():
    three, five = (row_of(design_of(RUNS.format(reps=n)), "other-core").detects_sd for n in (3, 5))
    assert five < three
    assert five == pytest.approx(float(power.detectable(1.0, 4, 0.01)) * (2 / 5) ** 0.5)


def test_a_configuration_without_reference_is_an_error_on_the_placements():
    design = design_of(RUNS.format(reps=5).replace('["solo", "other-core"]', '["other-core"]'))
    (problem,) = design.problems
    assert problem.path == "matrix.placement" and 'add "solo" to matrix.placement' in problem.message
    assert "has nothing to be judged against: no placement=solo configuration with its other values" \
        in problem.message and "no no" not in problem.message


def test_a_pilot_is_meant_and_left_out_repetitions_are_said():
    text = RUNS.format(reps=1).replace("repetitions = 1", "pilot = true")
    design = design_of(text)
    assert not design.problems
    assert any("a pilot" in n for n in design.notes)
    assert any("run.repetitions not set: 1 run per configuration" in n for n in design.notes)


def test_a_search_that_outlasts_grace_is_an_error_and_its_cost_is_stated():
    quiet = design_of(ON_OFF.replace("repetitions = 3", "repetitions = 8"))
    assert not any("sustained-rate" in n for n in quiet.notes)  # the default: no search
    searching = ON_OFF.replace("repetitions = 3", "repetitions = 8").replace(
        'bench = "timer_latency"', 'bench = "timer_latency"\nparams = { sustain = true }')
    design = design_of(searching)
    (problem,) = design.problems
    assert problem.path == "run.grace_s" and "Fix: grace_s = 500" in problem.message
    assert any("5 s (no interrupt lost) to 500 s" in n for n in design.notes)
    roomy = design_of(searching.replace("duration_s = 5", "duration_s = 5\ngrace_s = 600"))
    assert not roomy.problems
    assert roomy.run_s["other-core"] > design_of(ON_OFF.replace("repetitions = 3", "repetitions = 8")
                                                 ).run_s["other-core"] + 200


def test_wall_time_counts_every_run():
    design = design_of(RUNS.format(reps=5))
    assert design.total_s == pytest.approx(10 * (0.1 + 2 + 0.5))


def stored_runs(out, host: str, name: str = "runs", config: dict | None = None):
    """A stored campaign of the RUNS spec: 4 solo runs of qsort, each 10 % apart (`config`:
    more dimension values of their configuration)."""
    path = write_campaign(out / f"{name}-20260101-000000", name,
                          {"backend": {"kind": "native"}, "measurer": {"bench": "qsort"}},
                          [f"solo-r{i}" for i in range(4)], host={"hostname": host, "cpu_model": "synthetic"})
    for i in range(4):
        write_run(path, f"solo-r{i}", {"placement": "solo", **(config or {})}, 2000,
                  heavy_tail(1000 * 1.1 ** i, 1), metric="qsort", seed=i, index=i)


def test_the_noise_of_a_stored_campaign_of_the_spec_on_this_host_turns_sd_into_percent(tmp_path):
    text = RUNS.format(reps=5)
    spec, raw = parse_campaign(text, "spec.toml")
    stored_runs(tmp_path / "elsewhere", "another-host")
    assert check_design(spec, raw, plan(spec, raw), text, tmp_path / "elsewhere").noise == []
    stored_runs(tmp_path / "here", platform.node())
    design = check_design(spec, raw, plan(spec, raw), text, tmp_path / "here")
    (noise,) = design.noise
    assert (noise.metric, noise.units, noise.unit_word, noise.scale) == ("qsort", 4, "runs", "log")
    assert noise.sd == pytest.approx(np.log(1.1) * np.std(np.arange(4), ddof=1), rel=0.05)
    detects = row_of(design, "other-core").detects_sd
    assert noise.change_pct(detects) == pytest.approx((np.exp(detects * noise.sd) - 1) * 100)
    assert design.detected(noise) == [row_of(design, "other-core")]
    assert design.timed_by is None  # the synthetic runs have no start and end times


def test_a_metrics_noise_tells_only_the_configurations_that_measure_it(tmp_path):
    """qsort's noise says nothing of what basicmath's configurations detect (it said it
    for every configuration of the matrix)."""
    text = RUNS.format(reps=5) + '"measurer.bench" = ["qsort", "basicmath"]\n'
    spec, raw = parse_campaign(text, "spec.toml")
    stored_runs(tmp_path, platform.node(), config={"measurer.bench": "qsort", "start_order": "measurer-first"})
    design = check_design(spec, raw, plan(spec, raw), text, tmp_path)
    (noise,) = design.noise
    assert [r.config_id for r in design.detected(noise)] == ["other-core_bench-qsort"]


def test_a_long_run_keeps_its_duration_in_the_paired_fix():
    (problem,) = design_of(ON_OFF.replace("duration_s = 5", "duration_s = 60").replace("at_s = 3", "at_s = 30")
                           ).problems
    assert "[paired] (off_s = 1, on_s = 1) at the same run.duration_s = 60 (30 windows a run, 90 in all)" \
        in problem.message, problem.message


def test_the_cycles_of_a_stored_on_off_campaign_give_the_noise_of_the_on_off_design(tmp_path):
    path = write_campaign(tmp_path / "rtcheck-20260101-000000", "rtcheck",
                          {"backend": {"kind": "qemu"}, "measurer": {"bench": "timer_latency"}},
                          [f"other-core-r{i}" for i in range(3)], host={"hostname": platform.node()})
    events = [{"action": "start", "target": "membw", "at_sample": 1000},
              {"action": "stop", "target": "membw", "at_sample": 3000}]
    for i in range(3):
        write_run(path, f"other-core-r{i}", {"placement": "other-core"}, 5000,
                  with_step(heavy_tail(1000, 50), 1000, 3000, 1.2), metric="timer_latency", seed=i, index=i,
                  events=events)
    text = ON_OFF.replace("repetitions = 3", "repetitions = 8")
    spec, raw = parse_campaign(text, "spec.toml")
    design = check_design(spec, raw, plan(spec, raw), text, tmp_path)
    (noise,) = design.noise
    assert (noise.unit_word, noise.units, noise.scale) == ("windows", 3, "log") and noise.sd > 0
    assert "rtcheck-20260101-000000 (other-core)" == noise.source


def test_the_time_stored_runs_took_beyond_their_duration_replaces_the_guessed_boot(tmp_path):
    path = write_campaign(tmp_path / "runs-20260101-000000", "runs",
                          {"backend": {"kind": "native"}, "measurer": {"bench": "qsort"}}, ["solo-r0"],
                          host={"hostname": platform.node()})
    write_run(path, "solo-r0", {"placement": "solo"}, 100, heavy_tail(), metric="qsort",
              extra_meta={"duration_s": 2.0, "started_at": "2026-01-01T00:00:00+00:00",
                          "ended_at": "2026-01-01T00:00:03.5+00:00"})
    text = RUNS.format(reps=5)
    spec, raw = parse_campaign(text, "spec.toml")
    design = check_design(spec, raw, plan(spec, raw), text, tmp_path)
    assert design.timed_by == "runs-20260101-000000"
    assert design.total_s == pytest.approx(10 * (2 + 1.5))
