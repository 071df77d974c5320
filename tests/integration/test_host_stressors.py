"""Host stressors (`host = true`) and the steal injector, end to end on the native
backend: a timeline pauses and resumes the host process (no STEAL line while paused);
with xen a host stressor runs in dom0 (tests/integration/test_xen_dom0.py), so spec check
holds it to dom0's suite. That the measurer sees
each steal, with its length, natively and on QEMU/KVM, is `xtalk calibrate`'s check
(tests/integration/test_verdicts.py).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.framework.cli import campaign_dir, run_meta, write_spec, xtalk

# its measurer and the steal injector run SCHED_FIFO on the campaign's CPUs: alone (conftest.py)
pytestmark = pytest.mark.fifo

STEAL_US, PERIOD_US = 1000, 20000

SPEC = """
name = "steal"
cpus = [0, 1]
housekeeping_cpus = [1]
[backend]
kind = "{backend}"
[run]
duration_s = 3
grace_s = 10
pilot = true
sched = "{sched}"
priority = 10
[measurer]
bench = "hidden_latency"
[[stressors]]
name = "steal"
bench = "steal"
host = true
params = {{ steal_us = {steal_us}, period_us = {period_us} }}
[matrix]
placement = ["same-core"]
start_order = ["stressor-first"]
{extra}"""


def spec(tmp_path: Path, backend: str, sched: str = "fifo", extra: str = "") -> Path:
    return write_spec(tmp_path, SPEC.format(backend=backend, steal_us=STEAL_US, period_us=PERIOD_US,
                                            sched=sched, extra=extra))


def steals(run_dir: Path) -> np.ndarray:
    """(start_ns, end_ns) of every STEAL line of the stressor's console log."""
    lines = (run_dir / "console" / "steal.log").read_text().splitlines()
    return np.array([[int(x) for x in line.split()[1:3]] for line in lines if line.startswith("STEAL ")],
                    dtype=np.int64).reshape(-1, 2)


def test_timeline_pause_stops_the_host_stressor(tmp_path):
    extra = "".join(f'[[timeline]]\nat_s = {t}\naction = "{a}"\ntarget = "steal"\n'
                    for t, a in ((1.0, "pause"), (2.0, "resume")))
    out = tmp_path / "out"
    res = xtalk("run", spec(tmp_path, "native", sched="other", extra=extra), "--out", out)
    assert res.returncode == 0, res.stderr
    run_dir = campaign_dir(out) / "runs" / "same-core-r1"
    events = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]
    pause, resume = (e["host_ns"] for e in events if e["kind"] == "timeline")
    start = steals(run_dir)[:, 0]
    assert ((start >= pause) & (start < resume - 1_000_000)).sum() == 0, "a steal while paused"
    before, after = (start < pause).sum(), (start >= resume - 1_000_000).sum()
    assert before >= 40 and after >= 40, (before, after)          # ~50 per second otherwise
    assert run_meta(out, "same-core-r1")["guests"]["steal"]["argv"][0].endswith("build/native/xtalk-steal")


def test_xen_runs_host_stressors_in_dom0_so_spec_check_holds_them_to_its_suite(tmp_path):
    """No Xen needed: spec check alone. The steal injector is a native program, not one of
    dom0's (xtalk-rt's POSIX suite); stress_ng's class and parameters are checked."""
    res = xtalk("spec", "check", spec(tmp_path, "xen"))
    assert res.returncode == 2 and "stressors[0].bench" in res.stderr, res.stderr
    assert "bench 'steal' does not run here: it runs on the native backend and as a stressor with host = true "\
        "next to qemu guests" in res.stderr and "Traceback" not in res.stderr, res.stderr
    dom0 = SPEC.replace('bench = "steal"', 'bench = "stress_ng"').replace(
        "params = {{ steal_us = {steal_us}, period_us = {period_us} }}", "params = {{ class = \"{cls}\" }}")
    good = write_spec(tmp_path, dom0.format(backend="xen", sched="other", extra="", cls="vm"), "good.toml")
    res = xtalk("spec", "check", good)
    assert res.returncode == 0, res.stderr
    bad = write_spec(tmp_path, dom0.format(backend="xen", sched="other", extra="", cls="mem"), "bad.toml")
    res = xtalk("spec", "check", bad)
    assert res.returncode == 2 and "stressors[0].params.class" in res.stderr and "cpu, cache, vm" in res.stderr
