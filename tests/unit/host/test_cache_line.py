"""host/cache_line.py: the line size from line-test latencies of known shapes (the
development host's quiet runs, the run that once measured a 32 B line), and from runs
that disagree; and calibration/caches_machine.py: the machine's word per answer from
runs' noise records, an answer it cannot give taken out with why (issue 57)."""
from __future__ import annotations

import numpy as np

from xtalk.calibration.caches_machine import machine, void
from xtalk.host.cache_line import estimate, line, run_latencies
from xtalk.results.schema import SAMPLE_DTYPE

STRIDES = (16, 32, 64, 128, 256, 512)
QUIET = (3.34, 3.65, 4.33, 4.26, 4.20, 4.38)       # solo run on the development host: 64 B
DOCS = (7.2, 7.9, 9.9, 9.9, 9.7, 10.1)              # docs/caches.md's example
COOLED = (3.81, 4.18, 4.43, 4.56, 4.42, 4.67)       # a run beside a copy on CPU 1 sharing CPU 0's L1
SPUN = (3.20, 3.45, 3.71, 3.73, 3.74, 3.83)         # a spinner on CPU 0 (3.36 ns measured at 32 B), 3 % more


def lat(values) -> dict[int, float]:
    return dict(zip(STRIDES, values))


def run(values, rounds: int = 20, freq: float = 1e9, steps: int = 1000) -> tuple[dict, np.ndarray]:
    """A line-test run as cache_probe.c stores it: each round every stride once (metric 2)."""
    samples = np.zeros(rounds * len(values), dtype=SAMPLE_DTYPE)
    samples["metric"] = 2
    samples["value"] = np.tile(np.asarray(values) * steps, rounds)
    return {"freq_hz": freq, "guest_meta": {"line_strides": len(values), "line_steps": steps}}, samples


def test_quiet_runs_find_the_line_where_the_rise_is_clear():
    assert estimate(lat(QUIET)) == 64 and estimate(lat(DOCS)) == 64
    assert estimate(lat(SPUN)) == 64  # "within 10 % of the widest stride" took 32 B (3.45 >= 0.9 x 3.83)
    assert estimate(lat((3.0, 3.1, 3.3, 4.1, 4.0, 4.2))) == 128


def test_a_run_whose_rise_is_lost_in_its_spread_says_nothing_rather_than_32_bytes():
    assert estimate(lat(COOLED)) is None  # the 32 B stride at 0.895 of the widest: one noisy point from 32 B
    assert estimate(lat((4.0, 4.02, 4.01, 4.03, 4.0, 4.02))) is None  # flat: no rise at all


def test_runs_read_back_per_stride_in_ns():
    meta, samples = run(QUIET, freq=2e9)
    assert run_latencies(meta, samples) == {s: round(v / 2, 3) for s, v in zip(STRIDES, QUIET)}


def test_runs_that_agree_answer_and_runs_that_disagree_do_not_with_their_numbers():
    assert line([run(QUIET), run(DOCS), run(QUIET)])["bytes"] == 64
    found = line([run(QUIET), run(COOLED), run(QUIET)])
    assert found["bytes"] is None and [r["bytes"] for r in found["runs"]] == [64, None, 64]
    assert "3.81, 4.18, 4.43, 4.56, 4.42, 4.67 ns: no clear rise" in found["why"], found["why"]
    assert line([])["why"] == "no line test ran"


def noise(foreign_pct: float, cpu: str = "1", steal_s: float = 0.0, pid: int = 4242) -> dict:
    cpus = {c: {"busy_s": 0.5, "foreign_s": 0.0, "foreign_pct": 0.0, "steal_s": 0.0} for c in ("0", "1")}
    cpus[cpu] = {"busy_s": 0.5, "foreign_s": foreign_pct / 200, "foreign_pct": foreign_pct, "steal_s": steal_s}
    busiest = [{"pid": pid, "command": "cc1", "cpu_s": foreign_pct / 200, "pct": foreign_pct}] if foreign_pct else []
    return {"noise": {"wall_s": 0.5, "cpus": cpus, "busiest": busiest}}


def test_other_work_on_the_neighbour_cpu_voids_the_answers_its_runs_made_naming_the_process():
    quiet, busy = [noise(1.0, pid=0)] * 3, [noise(95.0)] * 3
    m = machine({}, {"levels": quiet, "line": busy}, [0, 1])
    assert m["state"] == "cannot" and m["cannot"] == ["line"] and m["answers"]["levels"]["state"] == "measurable"
    assert "PID 4242 (cc1" in m["text"] and "95 %" in m["text"], m["text"]
    fact = void({"machine": m, "line": {"bytes": 32, "runs": [], "why": None}})
    assert fact["line"]["bytes"] is None and fact["line"]["measured_bytes"] == 32
    assert fact["line"]["why"].startswith("the machine cannot answer for the line size: cannot measure here: CPUs 0, 1")


def test_the_hypervisors_steal_is_said_where_it_made_the_machine_doubtful():
    m = machine({}, {"levels": [noise(12.0, cpu="0", steal_s=0.05)] * 3}, [0, 1])
    assert m["state"] == "doubtful" and "hypervisor took 10 %" in m["text"], m["text"]
