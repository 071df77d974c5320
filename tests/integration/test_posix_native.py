"""The POSIX real-time suite (guests/posix, xtalk-rt) as native host programs: every
benchmark runs and speaks the protocol, samples reach a ring file, a starved
thread-metric thread fails the fairness check, cyclictest and stress-ng wrappers run
the host's tools. SCHED_FIFO is needed (root or CAP_SYS_NICE): skipped without it."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.framework.probe_boot import native_dhrystone_checksum
from tests.framework.linux_rt_checks import (KERNEL_OPS, PROBE_BENCHES, check_begin, check_cyclictest, check_hackbench,
                                   check_probe_bench, check_thread_metric, names, report)
from xtalk.telemetry.ring import RingReader, create_ring_file

ROOT = Path(__file__).resolve().parents[2]
BINARY = ROOT / "build/posix/native/xtalk-rt"
CPU = str(sorted(os.sched_getaffinity(0))[-1])
LATENCY = {"ctx_yield": 1, "sem": 3, "mutex": 2, "thread": 4, "suspend": 2, "msgq": 4, "event": 3,
           "stack": 4, "heap": 2}


def fifo_allowed() -> bool:
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
    except PermissionError:
        return False
    os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
    return True


pytestmark = [pytest.mark.fifo,  # its programs pin SCHED_FIFO threads to one CPU: alone (conftest.py)
              pytest.mark.skipif(not fifo_allowed(), reason="SCHED_FIFO not permitted (needs root or CAP_SYS_NICE)")]


@pytest.fixture(scope="module", autouse=True)
def built():
    subprocess.run(["make", "-s", "-C", str(ROOT), "posix"], check=True)


def rt(*params: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([str(BINARY), "run=n", f"cpus={CPU}", *params], capture_output=True, text=True,
                          timeout=timeout)


def check_kinds(rep, kind: str) -> None:
    """Every metric declares kind (and KPI kernel) and has its measured window."""
    assert rep.metrics and all((m.get("kind"), m.get("kpi")) == (kind, "kernel") for m in rep.metrics.values())
    assert all(int(rep.meta[f"window_ticks_{i}"]) > 0 for i in rep.metrics)


def test_list_names_every_benchmark():
    out = subprocess.run([str(BINARY), "list"], capture_output=True, text=True).stdout.split()
    assert set(out) == {"kernel_ops", *LATENCY, "tm_coop", "tm_preempt", "tm_interrupt", "tm_message",
                        "tm_sync", "tm_memory", "cyclictest", "hackbench", "stress_ng", *PROBE_BENCHES}


@pytest.mark.parametrize("bench,metrics", sorted(LATENCY.items()))
def test_latency_benchmark(bench, metrics):
    proc = rt(f"bench={bench}", "iterations=50", "warmup=5")
    assert proc.returncode == 0, proc.stdout[-500:]
    rep, samples = report(proc.stdout, "n")
    check_begin(rep, bench)
    assert rep.begin["platform"] == "native" and rep.meta["cpu"] == CPU
    assert len(rep.metrics) == metrics and all(len(samples[i]) == 50 for i in range(metrics))
    assert all(sum(rep.hist[i].values()) == 50 for i in range(metrics))
    check_kinds(rep, "duration")


def test_kernel_ops_into_a_ring_file(tmp_path):
    ring = tmp_path / "ring"
    create_ring_file(ring, 1 << 16)
    proc = rt("bench=kernel_ops", "iterations=100", f"ring={ring}")
    assert proc.returncode == 0, proc.stdout[-500:]
    rep, drained = report(proc.stdout, "n")
    assert not drained and sorted(names(rep)) == sorted(KERNEL_OPS)      # nothing on the console
    batch = RingReader(ring).read()
    assert batch.lost == 0 and len(batch.records) == 100 * len(KERNEL_OPS)
    counts = {m: int((batch.records["metric"] == m).sum()) for m in range(len(KERNEL_OPS))}
    assert set(counts.values()) == {100}
    assert int(rep.end["samples"]) == len(batch.records)


@pytest.mark.parametrize("bench,threads", [("tm_preempt", 5), ("tm_coop", 5), ("tm_interrupt", 1),
                                           ("tm_message", 1), ("tm_sync", 1), ("tm_memory", 1)])
def test_thread_metric(bench, threads):
    proc = rt(f"bench={bench}", "interval_s=0.2", "duration_s=0.6")
    assert proc.returncode == 0, proc.stdout[-500:]
    rows = check_thread_metric(proc.stdout, "n", bench, threads)
    assert len(rows) == 3 and all(row[0] > 0 for row in rows)
    rep, _ = report(proc.stdout, "n")
    check_kinds(rep, "throughput")
    assert 0.6e9 <= int(rep.meta["window_ticks_0"]) < 0.7e9     # three 0.2 s intervals, in ns


@pytest.mark.parametrize("bench,starve", [("tm_preempt", 2), ("tm_coop", 1)])
def test_starved_thread_fails_the_fairness_check(bench, starve):
    proc = rt(f"bench={bench}", "interval_s=0.2", "duration_s=0.4", f"starve={starve}")
    assert proc.returncode == 1
    rows = check_thread_metric(proc.stdout, "n", bench, 5, status="fail")
    rep, _ = report(proc.stdout, "n")
    assert f"thread {starve} count" in rep.end["reason"] and "fairness" in rep.end["reason"]
    assert all(row[1 + starve] == 0 for row in rows)


PROBE_PARAMS = {"dhrystone": "loops=20000", "cachebench": "size_kib=64 sample_kib=1024", "stream": "size=3m"}


@pytest.mark.parametrize("bench", sorted(PROBE_BENCHES))
def test_probe_bench_of_seed003(bench):
    """The probe's bench on the probe's driver, in xtalk-rt's environment (SCHED_FIFO,
    mlockall, pinned, CLOCK_MONOTONIC): the same work as the probe's (dhrystone leaves the
    same state as build/native/xtalk-bench)."""
    proc = rt(f"bench={bench}", *PROBE_PARAMS[bench].split(), "iterations=5")
    assert proc.returncode == 0, proc.stdout[-800:]
    values = check_probe_bench(proc.stdout, "n", bench, 5)
    rep, _ = report(proc.stdout, "n")
    assert rep.meta["cpu"] == CPU and all(int(rep.meta[f"window_ticks_{i}"]) > 0 for i in rep.metrics)
    if bench == "dhrystone":
        assert rep.meta["checksum"] == native_dhrystone_checksum(20000)
        assert min(values["dhrystone_dmips"]) > 10


def test_probe_bench_into_a_ring_file(tmp_path):
    ring = tmp_path / "ring"
    create_ring_file(ring, 1 << 10)
    proc = rt("bench=cachebench", "size_kib=64", "sample_kib=1024", "iterations=7", f"ring={ring}")
    assert proc.returncode == 0, proc.stdout[-500:]
    assert "XT SAMPLE" not in proc.stdout
    batch = RingReader(ring).read()
    assert batch.lost == 0 and sorted(batch.records["metric"].tolist()) == [0] * 7 + [1] * 7
    assert (batch.records["value"] > 0).all()


def test_bad_parameters_are_reported():
    proc = rt("bench=tm_preempt", "threads=3")
    assert proc.returncode == 2 and "status=badparam" in proc.stdout and "param=threads" in proc.stdout
    proc = rt("bench=tm_sync", "starve=0")
    assert proc.returncode == 2 and "param=starve" in proc.stdout
    assert rt("bench=nope").returncode == 2
    proc = rt("bench=dhrystone", "freq_hz=2000000000")      # the counter is CLOCK_MONOTONIC ns
    assert proc.returncode == 2 and "param=freq_hz" in proc.stdout


@pytest.mark.skipif(shutil.which("cyclictest") is None, reason="cyclictest not installed (apt-get install rt-tests)")
def test_cyclictest_wrapper():
    proc = rt("bench=cyclictest", "duration_s=1", "interval_us=1000")
    assert proc.returncode == 0, proc.stdout[-800:]
    values = check_cyclictest(proc.stdout, "n")
    assert len(values) > 500
    check_kinds(report(proc.stdout, "n")[0], "latency")


@pytest.mark.skipif(shutil.which("hackbench") is None, reason="hackbench not installed (apt-get install rt-tests)")
@pytest.mark.parametrize("params,tasks", [(["groups=1"], 40), (["groups=2", "fds=5", "mode=thread", "pipe=1"], 20)])
def test_hackbench_wrapper(params, tasks):
    proc = rt("bench=hackbench", "iterations=3", "warmup=1", "loops=200", *params)
    assert proc.returncode == 0, proc.stdout[-800:]
    check_hackbench(proc.stdout, "n", 3, tasks)
    cmd = report(proc.stdout, "n")[0].meta["cmd"]
    assert ("-T" in cmd.split() and "-p" in cmd.split()) == ("mode=thread" in params)
    assert rt("bench=hackbench", "mode=fibre").returncode == 2


@pytest.mark.skipif(shutil.which("stress-ng") is None, reason="stress-ng not installed (apt-get install stress-ng)")
def test_stress_ng_wrapper():
    proc = rt("bench=stress_ng", "class=cpu", "duration_s=1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rep, _ = report(proc.stdout, "n")
    assert rep.begin["role"] == "stressor" and f"--taskset {CPU}" in rep.meta["cmd"] and rep.status == "pass"
    assert rt("bench=stress_ng", "class=bogus").returncode == 2
