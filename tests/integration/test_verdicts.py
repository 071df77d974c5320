"""Verdicts on real campaigns, natively and on QEMU: a known effect must be found with its
size, and no effect must not be called one.
* a same-core CPU hog next to the hidden-latency probe: `interference`, told as the
  stolen time and the rate of long gaps;
* known steals of two lengths injected by a real-time host thread (`xtalk calibrate`):
  the probe sees each, measured gap against injected length has a slope within 5 % of 1,
  and the intercept (the switch cost of one preemption) is recorded for later runs;
* the paired design: a 3 % steal switched on and off every second is `interference` (on a
  host too noisy for 10 windows, after the windows the first verdict says would decide
  it); the same design with an injector that steals nothing is not.
"""
from __future__ import annotations

import json
import math
import re
import shutil
from pathlib import Path

import pytest

from tests.framework.backends import SLOW_ON_QEMU
from tests.framework.cli import write_spec, xtalk
from tests.framework.known_answer import machine_voids, voided
from tests.framework.steal_truth import steal_cost

QEMU = pytest.param("qemu", marks=pytest.mark.skipif(
    shutil.which("qemu-system-x86_64") is None, reason="qemu-system-x86_64 is not installed"))
BACKENDS = ["native", QEMU]
# the cost of one preemption to the probe (µs), as `xtalk calibrate` measured it (43-61 natively,
# 60.6 on 2026-11-26; 115-119 on QEMU/KVM; the median steal gap less the steal, 110 natively on a
# Firecracker VM, 2026-12-02), with margin: the bound test_calibrate_recovers_a_known_steal puts on it
SWITCH_COST_US = (0, 200)

HOG = """
name = "hog"
cpus = [0, 1]
[backend]
kind = "{backend}"
[run]
duration_s = 1
repetitions = 5
start_gap_s = 0.2
[measurer]
bench = "hidden_latency"
[[stressors]]
name = "hog"
bench = "cpu_spin"
[matrix]
placement = ["solo", "same-core"]
# a long gap: over 1 ms, the hog's time slices (3-4 ms); the default 100 µs counts the machine's own
# interruptions too where it is a VM (41-91 a second alone on a Firecracker VM, 2026-12-02: a hog's
# ~130 slices a second were then not 3 x solo)
[[deadlines]]
metric = "hidden_latency"
ns = 1000000
"""

PAIRED = """
name = "paired"
cpus = [0, 1]
[backend]
kind = "{backend}"
[run]
duration_s = {duration_s}
sched = "fifo"   # the host's other work does not preempt the probe; the injector (priority 50) does
priority = 10
[measurer]
bench = "hidden_latency"
[[stressors]]
name = "steal"
bench = "steal"
host = true
params = {{ steal_us = 300 }}
[paired]
# kept windows of exactly 1 s (1.1 s less 0.1 s settling): the kernel's real-time throttle
# takes one ~50 ms block a second from the spinning FIFO probe, and a window of whole
# seconds holds the same share of it at any phase, where a 0.9 s one held the block or not
# (5.4 points either way; in one CI run an interval of +-3.5 points, its middle 2.1 from the truth)
off_s = 1.1
on_s = 1.1
settle_s = 0.1
[matrix]
placement = ["same-core"]
# 300 us every 10 ms: 3 % of the CPU; every 1000 s: never within the run (no injection)
"stressors.steal.params.period_us" = [10000, 1000000000]
"""


CALIBRATE = """
name = "cal"
cpus = [0, 1]
[backend]
kind = "{backend}"
[run]
sched = "fifo"   # nothing but the injector (priority 50) and the kernel preempts the probe
priority = 10
[measurer]
bench = "hidden_latency"
"""


def report_json(out, name: str) -> dict:
    res = xtalk("report", name, "--out", out, "--json", "--no-samples", "--no-plots")
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


@pytest.mark.timing
@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_same_core_hog_is_interference_in_stolen_time_and_long_gaps(tmp_path, backend):
    out = tmp_path / "out"
    run = xtalk("run", write_spec(tmp_path, HOG.format(backend=backend)), "--out", out)
    assert run.returncode == 0, run.stderr
    report = report_json(out, "hog")
    if why := machine_voids(report["measurability"], "hidden_latency"):
        return voided(why)
    verdicts = {v["config_id"]: v for v in report["verdicts"]}
    same = verdicts["same-core"]
    assert verdicts["solo"]["verdict"] == "baseline"
    assert same["kind"] == "gap" and same["kind_declared"] and same["statistic"] == "stolen_share"
    assert same["verdict"] == "interference", same["sentence"]
    # a CPU hog of equal weight takes about half the CPU
    assert 0.3 < same["change"] < 0.7, same["sentence"]
    assert "stolen time" in same["sentence"] and "long gaps" in same["sentence"]
    long_gaps = next(s for s in same["secondary"] if s["statistic"] == "long_gap_rate")
    assert long_gaps["value"] > 3 * max(long_gaps["reference_value"], 1.0), same["sentence"]


@pytest.mark.timing
@pytest.mark.slow
@pytest.mark.parametrize("backend", SLOW_ON_QEMU)
def test_calibrate_recovers_a_known_steal(tmp_path, backend):
    def calibrate(out: Path, runs: int) -> tuple[int, dict, dict]:
        res = xtalk("calibrate", write_spec(tmp_path, CALIBRATE.format(backend=backend)), "--out", out, "--json",
                    "--runs", str(runs), "--duration-s", "1", timeout=600)
        assert res.stdout, res.stderr
        result = json.loads(res.stdout)
        return res.returncode, result, {c["name"]: c for c in result["checks"]}

    runs, out = 5, tmp_path / "out"
    code, result, checks = calibrate(out, runs)
    verdict = checks["verdict of the 1000 µs steal"]
    if verdict["measured"] == "inconclusive" and (need := re.search(r"about (\d+) runs per side", verdict["reason"])):
        # a noisy host (the kernel's real-time throttling takes a ~50 ms block of some 1 s runs of the
        # FIFO probe and not others): do what the answer tells a user, once, with half as many runs
        # again as it says would decide it (at most 15)
        print(f"{backend}: {verdict['reason']} with {runs} runs: again with more")
        runs, out = min(math.ceil(1.5 * int(need[1])), 15), tmp_path / "again"
        code, result, checks = calibrate(out, runs)
        verdict = checks["verdict of the 1000 µs steal"]
    if (machine := result["machine"])["state"] == "cannot":
        assert code == 1 and machine["text"] in result["answer"], result["answer"]
        return voided(machine["text"])
    injected = result["injected"]
    for length in (300, 1000):
        seen = checks[f"steals seen ({length} µs)"]
        off = abs(seen["measured"] / seen["expected"] - 1)
        assert seen["ok"] is (off <= seen["tolerance"]), seen  # a bool in the JSON, as the numbers say
        assert off <= 0.10 and seen["expected"] > runs * 90, (seen, injected["lengths"])  # runs x ~1 s / 10 ms
    assert verdict["measured"] == "interference", verdict
    # the time axis of each run lags the host's by how stale its freshest clock pair was: well under a period
    assert all(abs(r["lag_us"]) < 1000 for r in injected["runs"] if r["steals"]), injected["runs"]
    slope = checks["slope of measured against injected"]
    assert slope["ok"] is True and abs(slope["measured"] - 1) <= 0.05, (slope, injected["slope_ci"])
    assert injected["slope_ci"][0] < injected["slope"] < injected["slope_ci"][1]
    # one preemption costs the measurer the switches to the stealing thread and back: tens of µs
    assert SWITCH_COST_US[0] < injected["switch_cost_us"] < SWITCH_COST_US[1], injected["switch_cost_ci_us"]
    assert result["noise_floor"] is not None and result["aa"]["mde_per_minute"]["runs"] is not None
    assert code == (0 if result["ok"] else 1)
    assert all(c["ok"] is (c["status"] in ("recovered", "no false alarm")) for c in checks.values()), checks
    assert result["answer"].startswith("This setup can see effects of ±") and f"with {runs} runs per configuration" in \
        result["answer"] and ("steals were recovered" in result["answer"]) is result["ok"], result["answer"]
    platform = json.loads(Path(result["platform"]["file"]).read_text())
    assert platform["backend"] == backend and platform["preemption_cost_us"] == injected["switch_cost_us"]
    assert platform["source"] == Path(result["campaigns"]["steal"]).name
    if backend == "native":  # a later campaign on this host and backend records it in every run
        spec = write_spec(tmp_path, CALIBRATE.format(backend=backend).replace('"cal"', '"after"'), "after.toml")
        run = xtalk("run", spec, "--out", out, "--set", "run.duration_s=0.3", "--set", "run.repetitions=1")
        assert run.returncode == 0, run.stderr
        (meta,) = [json.loads(p.read_text()) for p in out.glob("after-*/runs/*/meta.json")]
        assert meta["platform"] == {k: platform[k] for k in ("preemption_cost_us", "slope", "calibrated_at",
                                                             "source")}


# alone: calibrate runs its probe SCHED_FIFO on CPU 0 (CALIBRATE), which starves what shares that CPU (in a
# gate, 2026-12-03, the other worker's same-core cache thrasher, runnable without CPU for 0.4 s of 0.5 s: its
# run failed, "stressor thrash stalled", and with it the 10 tests of test_cli_errors.py that read its campaign)
@pytest.mark.fifo
@pytest.mark.slow
def test_calibrate_ends_with_its_bottom_line_and_an_exit_code_that_says_it(tmp_path):
    """Two short runs a configuration (seconds): the table's statuses, explained above it, and
    one sentence last: what the setup can see with 2 runs, and whether the steals were
    recovered or why not; exit 0 or 1 by that."""
    res = xtalk("calibrate", write_spec(tmp_path, CALIBRATE.format(backend="native")), "--out", tmp_path / "out",
                "--runs", "2", "--duration-s", "0.5", timeout=300)
    lines = res.stdout.strip().splitlines()
    assert res.stdout.index("columns: expected: what was injected") < res.stdout.index("│ steals seen (300 µs)")
    statuses = [line.split("│")[-2].strip() for line in lines if line.startswith("│ ")]
    assert len(statuses) == 6 and all(s.startswith(("recovered", "missed", "no false alarm", "false alarm", "not "
                                                    "separated from zero", "off scale", "no fit")) for s in statuses)
    answer = lines[-1]
    assert answer.startswith("This setup can see effects of ±") and "with 2 runs per configuration; the injected " \
        "steals were " in answer and answer.endswith("."), res.stdout
    recovered = "the injected steals were recovered" in answer
    # a machine busy with work of its own may be too busy to answer (the sentence says so): exit 1 then too
    answers = "false alarm" not in answer and "this machine cannot answer" not in answer
    assert res.returncode == (0 if recovered and answers else 1), res.stdout + res.stderr
    assert recovered or "were not recovered, because " in answer


@pytest.mark.timing
@pytest.mark.slow
@pytest.mark.timeout(600)  # 50 s, and where the host is noisy up to 200 s more for the second campaign
@pytest.mark.parametrize("backend", SLOW_ON_QEMU)
def test_paired_design_finds_a_3pct_steal_and_not_a_null_one(tmp_path, backend):
    def paired(out: Path, duration_s: int) -> tuple[dict, dict]:
        run = xtalk("run", write_spec(tmp_path, PAIRED.format(backend=backend, duration_s=duration_s)), "--out", out,
                    timeout=600)
        assert run.returncode == 0, run.stderr
        report = report_json(out, "paired")
        return report["measurability"], {v["config"]["stressors.steal.params.period_us"]: v for v in report["verdicts"]}

    duration_s, out = 22, tmp_path / "out"
    machine, verdicts = paired(out, duration_s)
    if verdicts[10000]["verdict"] == "inconclusive" and verdicts[10000].get("need_units"):
        # A noisy host (in one CI run: the kernel's real-time throttling took a ~50 ms block
        # of every second from the FIFO probe, off windows 6.6-16.6 % stolen, noise floor
        # ±4.9 points against the 3.3 measured): do what the verdict tells a user, once,
        # with half as many windows again as it says would decide it (at most 45).
        duration_s, out = min(2.2 * math.ceil(1.5 * verdicts[10000]["need_units"]), 99), tmp_path / "again"
        machine, verdicts = paired(out, duration_s)
    if why := machine_voids(machine, "hidden_latency"):
        return voided(why)
    steal, null = verdicts[10000], verdicts[1000000000]
    assert steal["design"] == null["design"] == "paired"
    assert steal["units"][0] >= 0.8 * duration_s / 2.2  # an on-window each 2.2 s
    assert steal["verdict"] == "interference", steal["sentence"]
    # what the probe loses to 100 steals a second: each steal's gap as this machine makes it, the
    # 300 µs and one preemption's switches (SWITCH_COST_US), from the injector's log and the probe's
    # own gaps (steal_truth.py: 110 µs of switches on a Firecracker VM, where the old bound of 3 % less
    # the host's share plus at most 80 µs a steal held 3.65 points and the probe lost 4.81 [4.1, 5.53]);
    # within the 1.2 points this test allows either side, or within the precision xtalk claims
    # where that is wider: the half of its 95 % interval (a CI run, 2026-12-03: +4.8 points
    # [+1.28, +8.33] against the truth 3.37, its interval holding it, its middle 1.43 from it)
    cost = steal_cost(out, 10000)
    # 100 steals a second over the 1 s kept of each on-window (a late wake-up skips one), most of them seen
    assert cost["steals"] >= 0.8 * 100 * steal["units"][0] and cost["seen"] >= 0.8 * cost["steals"], cost
    low, high = SWITCH_COST_US
    assert low < cost["median_gap_us"] - 300 < high, cost
    low_ci, high_ci = steal["ci95"]
    assert abs(steal["change"] - cost["points"]) <= max(0.012, (high_ci - low_ci) / 2), (steal["sentence"], cost)
    assert null["verdict"] != "interference", null["sentence"]


def test_calibrate_refuses_bad_steal_lengths_in_one_line_before_anything_runs(tmp_path):
    spec = write_spec(tmp_path, CALIBRATE.format(backend="native"))
    for lengths, told in ((["0", "300"], "--steal-us: 0 must be > 0 and shorter than --period-us (10000)"),
                          (["300", "10000"], "--steal-us: 10000 must be > 0"),
                          (["300", "300"], "--steal-us: give each length once")):
        res = xtalk("calibrate", spec, "--out", tmp_path / "out", "--steal-us", *lengths)
        assert res.returncode == 2 and told in res.stderr, res.stderr
        assert res.stderr.count("\n") == 1 and res.stderr.startswith("xtalk: error: calibrate: ")
    assert not (tmp_path / "out").exists()


def test_calibrate_refuses_a_backend_whose_cpus_are_not_this_hosts(tmp_path):
    spec = write_spec(tmp_path, HOG.format(backend="xen").replace('kind = "xen"', 'kind = "xen"\nexecutor = "lab"'))
    res = xtalk("calibrate", spec, "--out", tmp_path / "out")
    assert res.returncode == 2 and "backend.kind" in res.stderr and "steal" in res.stderr
    assert "Traceback" not in res.stderr and not (tmp_path / "out").exists()
