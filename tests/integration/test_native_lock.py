"""The lock bench on the native backend, where a "vCPU" is a thread pinned to its CPU:
each vCPU's samples stored and judged apart, and the known answers of the lock-holder
channel (issue 45). Stacked on one CPU, the two vCPUs hand the lock over about a
scheduler time slice later than spread on two; spread, a host hog on one vCPU's CPU
preempts the holder now and then and the other vCPU's acquisitions wait for it (the
acquisition tail grows); spread with no neighbour is the baseline. Each answer natively
and under QEMU (KVM here), as a campaign a user would run. Thresholds: CFS gives
a runnable thread at least its minimum granularity (0.75 ms at one CPU, more with more)
before the other on its CPU runs; a spread handover takes well under a microsecond here."""
from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq

import pytest

from tests.framework.cli import campaign_dir, write_spec, xtalk
from tests.framework.backends import BACKENDS
from tests.framework.known_answer import machine_voids, voided
from tests.framework.native_bench import only, run

# the lock bench on two vCPUs, 3 runs of 0.5 s a configuration; then what each test adds
LOCK = """
cpus = [0, 1]
[backend]
kind = "{backend}"
[run]
duration_s = 0.5
repetitions = 3
[measurer]
bench = "lock"
vcpus = 2
"""
SPEC = 'name = "lock"' + LOCK + """[matrix]
"measurer.vcpu_placement" = ["spread", "stacked"]
[analysis]
baseline = "measurer.vcpu_placement=spread"
"""
# 5 runs a side (the exact test reaches p < 0.01); the lock held half the time, a few
# thousand times a second: a preempted holder delays a few % of the other vCPU's
# acquisitions, so the p99 the verdict judges sees it; and fewer samples, less of xtalk's
# own reading on CPU 1
HOG = 'name = "lockhog"' + LOCK.replace("repetitions = 3", "repetitions = 8") + """params = {{ hold_us = 200, think_us = 200 }}
[[stressors]]
name = "hog"
bench = "cpu_spin"
host = true
[matrix]
placement = ["solo", "same-core"]
start_order = ["stressor-first"]  # the hog on before the measurer's window opens
"""
SLICE_NS = 750_000  # CFS's smallest minimum granularity (sched_min_granularity at one CPU)


# alone: handovers both ways need both vCPUs running at once. Run unpinned (as here), vCPU 0
# once spun on vCPU 1's CPU until the 4 ms tick and made its 2,000 acquisitions before vCPU 1
# ran (handovers {1: 1, 3: 0}); the first vCPU start now pins vCPU 0 to its own CPU
# (smp_linux.c) and the vCPUs meet before their cases (driver.c)
@pytest.mark.timing
def test_each_vcpu_runs_the_bench_and_writes_its_own_metrics(native_bench):
    code, recs, out = run(native_bench, "bench=lock", "run=a", "vcpus=2", "vcpu_cpus=0,1", "iterations=2000",
                          "buffer_slots=100000")
    assert code == 0, out[-2000:]
    metrics = {int(m["id"]): (m["name"], m["vcpu"]) for m in only(recs, "METRIC")}
    assert metrics == {0: ("lock_acquire_vcpu0", "0"), 1: ("lock_handover_vcpu0", "0"),
                       2: ("lock_acquire_vcpu1", "1"), 3: ("lock_handover_vcpu1", "1")}
    samples = only(recs, "SAMPLE")
    per_metric = {i: sum(s["metric"] == str(i) for s in samples) for i in metrics}
    assert per_metric[0] == per_metric[2] == 2000, per_metric  # every acquisition of each vCPU
    assert per_metric[1] > 0 and per_metric[3] > 0, per_metric  # handovers both ways
    assert sorted(int(s["seq"]) for s in samples) == list(range(len(samples)))  # one ring, no seq lost or doubled
    assert {f"window_ticks_{i}" for i in metrics} <= {k for m in only(recs, "META") for k in m}


def test_a_one_vcpu_bench_on_several_and_the_lock_on_one_are_refused(native_bench):
    code, recs, _ = run(native_bench, "bench=qsort", "run=a", "vcpus=2", "iterations=1")
    assert code == 2 and "qsort runs on one vCPU" in only(recs, "ERROR")[0]["msg"]
    code, recs, _ = run(native_bench, "bench=lock", "run=a", "iterations=1")
    assert code == 2 and "at least two vCPUs" in only(recs, "ERROR")[0]["msg"]


@pytest.mark.timing
@pytest.mark.parametrize("backend", BACKENDS)
def test_stacked_vcpus_hand_the_lock_over_a_time_slice_later_than_spread(tmp_path, backend):
    out = tmp_path / "out"
    res = xtalk("run", write_spec(tmp_path, SPEC.format(backend=backend)), "--out", out)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr
    report = json.loads(xtalk("report", "lock", "--out", out, "--json", "--no-samples", "--no-plots").stdout)
    median = {(s["metric"], s["config_id"]): s["median_ns"] for s in report["stats"]}
    for vcpu in (0, 1):
        spread = median[(f"lock_handover_vcpu{vcpu}", "vcpu_placement-spread")]
        stacked = median[(f"lock_handover_vcpu{vcpu}", "vcpu_placement-stacked")]
        assert spread < 50_000 and stacked - spread >= SLICE_NS, (vcpu, spread, stacked)
    verdicts = {(v["metric"], v["config_id"]): v["verdict"] for v in report["verdicts"]}
    for metric in ("lock_handover_vcpu0", "lock_handover_vcpu1"):
        verdict = verdicts[(metric, "vcpu_placement-stacked")]
        # no answer where xtalk says why: the spread baseline's p99 varied +-243 % run to run (3 runs)
        # on a 2-CPU host in a CI run (2026-12-03, under QEMU); the machine line's words are the answer
        if verdict == "inconclusive" and (why := machine_voids(report["measurability"], metric)):
            return voided(why)
        assert verdict == "interference", (metric, verdict)


@pytest.mark.timing
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_hog_on_a_vcpus_cpu_stretches_the_acquisition_tail(tmp_path, backend):
    """Spread on CPUs 0 and 1, a host CPU hog on CPU 0 (same-core: vCPU 0's) against none:
    vCPU 1's acquisitions that waited over half a time slice (vCPU 0 preempted holding the
    lock or queued before it), counted from the stored samples. vCPU 1's own CPU is where
    xtalk reads the ring on a 2-CPU host: that preempts vCPU 1, which shows in vCPU 0's
    waits, not in these. 8 runs a side: solo, vCPU 1's p99 falls in its uncontended or its
    contended mode from run to run (0.5-115 µs seen), and with 5 a side the noise floor that
    spread gives reached x181, above the effect (x169) once in a gate; with 8, x6-x16
    against x101-x516 in three runs."""
    out = tmp_path / "out"
    res = xtalk("run", write_spec(tmp_path, HOG.format(backend=backend)), "--out", out)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr
    waits = {config: long_waits(campaign_dir(out), config) for config in ("solo", "same-core")}
    assert waits["same-core"] >= 10 and waits["same-core"] > 3 * waits["solo"], waits
    report = json.loads(xtalk("report", "lockhog", "--out", out, "--json", "--no-samples", "--no-plots").stdout)
    verdict = next(v for v in report["verdicts"] if v["metric"] == "lock_acquire_vcpu1" and v["config_id"] == "same-core")
    assert verdict["verdict"] == "interference", (verdict["sentence"], waits)


def long_waits(campaign: Path, config: str) -> int:
    """vCPU 1's acquisitions (all runs of the configuration) that waited over half a time
    slice, from the samples the campaign stored."""
    total = 0
    for path in campaign.glob(f"runs/{config}-r*/samples.parquet"):
        samples = pq.read_table(path, columns=["metric", "value_ns"]).to_pydict()
        total += sum(1 for m, ns in zip(samples["metric"], samples["value_ns"])
                     if m == "lock_acquire_vcpu1" and ns > SLICE_NS / 2)
    return total
