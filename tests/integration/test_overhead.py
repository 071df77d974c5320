"""The backend as a matrix dimension, end to end: one spec runs qsort and timer_latency
natively and under QEMU (5 runs each, a fresh VM or process per run: 5 against 5 is the
fewest an exact test needs for p < 0.01); every run's metadata says its backend, and the
report's overhead[] has one entry per metric and configuration: the native ones are the
baseline, each guest one its change against the same configuration natively, in ns from
each run's own counter frequency, with interval, p and noise floor; `xtalk show` prints it."""
from __future__ import annotations

import json
import math
import shutil

import pytest

from tests.framework.cli import campaign_dir, run_meta, write_spec, xtalk

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("qemu-system-x86_64") is None,
                                                   reason="qemu-system-x86_64 is not installed")]

SPEC = """
name = "overhead"
cpus = [0, 1]
[backend.qemu]
memory_mib = 128
[run]
duration_s = 1
grace_s = 5
repetitions = 5
[measurer]
bench = "qsort"
[measurer.params.qsort]
size_kib = 256
[measurer.params.timer_latency]
sustain = false   # the sustained-rate search takes minutes
[matrix]
"backend.kind" = ["native", "qemu"]
"measurer.bench" = ["qsort", "timer_latency"]
"""


def test_native_and_qemu_in_one_campaign_give_the_overhead_per_metric_and_configuration(tmp_path):
    out = tmp_path / "out"
    run = xtalk("run", write_spec(tmp_path, SPEC), "--out", out, "--json", timeout=240)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["passed"] == 20
    for kind in ("native", "qemu"):
        meta = run_meta(out, f"{kind}_bench-qsort-r1")
        assert meta["backend"] == kind == meta["backend_metadata"]["backend"] and meta["config"]["backend.kind"] == kind
    res = xtalk("report", "overhead", "--out", out, "--json", "--no-samples", "--no-plots")
    assert res.returncode == 0, res.stderr
    report = json.loads(res.stdout)
    overhead = {(v["config_id"], v["metric"]): v for v in report["overhead"]}
    assert set(overhead) == {(s["config_id"], s["metric"]) for s in report["stats"]}
    assert {m for _, m in overhead} == {"qsort", "timer_latency"} and len(overhead) == 4
    median_ns = {r["run_id"]: r["median_ns"] for r in report["stats_runs"]}
    for bench in ("qsort", "timer_latency"):
        native, guest = overhead[f"native_bench-{bench}", bench], overhead[f"qemu_bench-{bench}", bench]
        assert native["verdict"] == "baseline" and native["backend"] == "native"
        assert guest["backend"] == "qemu" and guest["baseline"] == f"native_bench-{bench}"
        assert guest["verdict"] in ("overhead", "no-overhead", "inconclusive") and guest["units"] == [5, 5]
        for key in ("change_pct", "ci95_pct", "p_value", "noise_floor_pct", "value", "reference_value"):
            assert guest[key] is not None, (key, guest["sentence"])
        assert f"qemu_bench-{bench} against native_bench-{bench}" in guest["sentence"]
        assert guest["reference_value"] == pytest.approx(native["value"])
    # the statistic in ns, each run converted with its own frequency: the geometric mean of the runs' medians
    qsort = overhead["qemu_bench-qsort", "qsort"]
    runs = [median_ns[f"qemu_bench-qsort-r{i}"] for i in range(1, 6)]
    assert qsort["value"] == pytest.approx(math.exp(sum(map(math.log, runs)) / 5), rel=1e-6)
    show = xtalk("show", campaign_dir(out), "--out", out)
    assert show.returncode == 0 and "Overhead of each guest against the bare machine (native)" in show.stdout, show.stderr
