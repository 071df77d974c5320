"""Host stressors (`host = true`) and the steal injector, end to end: real campaigns on
the native backend and on QEMU/KVM (probe guest), measurer hidden_latency.

The steal stressor on the measurer's CPU writes `STEAL <start_ns> <end_ns>` (host
CLOCK_MONOTONIC) for every millisecond it takes; mapped onto the run's time axis with
meta.json's origin_host_ns, each steal inside the measured window must be one gap of the
measurer's (samples.parquet: value_ns = the gap, t_s = when it ended) of the steal's
length plus a fixed switching overhead, and the stolen time must add up. The overhead
(switch out of the measurer, the STEAL line's write, the sleep, switch back; for a VM the
exit and re-entry too) is measured by a control run in the same campaign with steal_us=0,
which only wakes up. The measurer runs SCHED_FIFO below the steal (priority 10 < 50), so
nothing but the steal (and interrupts) preempts it: with SCHED_OTHER, xtalk's own console
reader, woken by each STEAL line, may take the measurer's CPU too (seen: +0.6 to 1 ms).
Measured on the 2-vCPU dev VM: overhead 17-50 us native, 41-65 us QEMU/KVM (kvm-pvm).
Now and then host noise lands in a steal's gap (a few ms; 50 ms when the kernel's fair
server runs starved SCHED_OTHER tasks on the CPU): up to MAX_NOISY of the steals may be
such gaps, and the stolen time is added up over the others; a whole attempt is repeated
when the shared host disturbed more (ATTEMPTS).
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from tests.blackbox.cli import campaign_dir, run_meta, write_spec, xtalk

STEAL_US, PERIOD_US = 1000, 20000
TOLERANCE = 0.05     # of the steal's length, per gap and for the total
JITTER_US = 50       # a gap's overhead may differ this much from the control's median
MAX_NOISY = 0.03     # share of steals whose gap may also hold unrelated host noise
ATTEMPTS = 3

SPEC = """
name = "steal"
cpus = [0, 1]
housekeeping_cpus = [1]
[backend]
kind = "{backend}"
[run]
duration_s = 3
grace_s = 10
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


def matched(run_dir: Path) -> tuple[np.ndarray, np.ndarray]:
    """(steal lengths, the one gap of the measurer's that holds each) in seconds, for the
    steals inside the measured window; asserts that every such steal is exactly one gap."""
    meta = json.loads((run_dir / "meta.json").read_text())
    assert meta["status"] == "pass", meta["reason"]
    window_s = int(meta["guest_meta"]["window_ticks_0"]) / meta["freq_hz"]
    table = pq.read_table(run_dir / "samples.parquet", columns=["t_s", "value_ns"]).to_pydict()
    end, gap = np.array(table["t_s"]), np.array(table["value_ns"]) / 1e9
    assert len(end) and end.min() < 0.05, "the measured window should start right after XT BEGIN"
    s = (steals(run_dir) - meta["origin_host_ns"]) / 1e9
    inside = s[(s[:, 0] > 0.05) & (s[:, 1] < window_s)]
    assert len(inside) > 0.8 * (window_s - 0.05) / (PERIOD_US / 1e6), f"only {len(inside)} steals in the window"
    lengths, gaps = [], []
    for a, b in inside:
        over = np.flatnonzero((end - gap < b) & (end > a) & (gap > (b - a) / 2))
        assert len(over) == 1, f"steal at {a:.6f}-{b:.6f} s is {len(over)} gaps: {gap[over]}"
        assert gap[over[0]] >= b - a, f"steal at {a:.6f} s: gap {gap[over[0]]:.6f} s shorter than the steal"
        lengths.append(b - a)
        gaps.append(gap[over[0]])
    return np.array(lengths), np.array(gaps)


def check_recovery(out: Path) -> str:
    """Steal vs control run: each gap = steal + overhead within tolerance, but for a few
    that hold host noise too; the stolen time of the others adds up within tolerance.
    Returns the figures."""
    overhead = float(np.median(control_overheads(campaign_dir(out) / "runs" / "steal_us-0-r1")))
    lengths, gaps = matched(campaign_dir(out) / "runs" / f"steal_us-{STEAL_US}-r1")
    excess = gaps - lengths - overhead
    clean = np.abs(excess) <= TOLERANCE * lengths + JITTER_US / 1e6
    expected, measured = lengths[clean].sum(), (gaps[clean] - overhead).sum()
    figures = (f"{len(lengths)} steals in the window, each one gap; overhead (control median) "
               f"{overhead * 1e6:.1f} us; gap - steal - overhead: median {np.median(excess) * 1e6:.1f} us, "
               f"max {excess.max() * 1e6:.1f} us; {np.sum(~clean)} gap(s) outside tolerance (host noise); "
               f"stolen ms: all steals {lengths.sum() * 1e3:.3f}, their gaps {gaps.sum() * 1e3:.3f}; within "
               f"tolerance {expected * 1e3:.3f}, their gaps less the overhead {measured * 1e3:.3f}")
    assert np.mean(~clean) <= MAX_NOISY, figures
    assert abs(measured - expected) <= TOLERANCE * expected, figures
    return figures


def control_overheads(run_dir: Path) -> np.ndarray:
    """The gap each wake-up of the steal_us=0 control makes: the fixed overhead. The gap
    lies just after the wake-up on the run's time axis (the guest-to-host clock mapping is
    an upper bound, late by tens of microseconds)."""
    meta = json.loads((run_dir / "meta.json").read_text())
    assert meta["status"] == "pass", meta["reason"]
    table = pq.read_table(run_dir / "samples.parquet", columns=["t_s", "value_ns"]).to_pydict()
    end, gap = np.array(table["t_s"]), np.array(table["value_ns"]) / 1e9
    wakes = (steals(run_dir)[:, 0] - meta["origin_host_ns"]) / 1e9
    wakes = wakes[(wakes > 0.05) & (wakes < end.max())]
    found = [gap[i].max() for w in wakes if len(i := np.flatnonzero((end >= w) & (end < w + 3e-4)))]
    assert len(found) > 0.9 * len(wakes) > 0, f"{len(found)} of {len(wakes)} control wake-ups seen as gaps"
    return np.array(found)


def recovered(tmp_path: Path, backend: str) -> str:
    failures = []
    for attempt in range(ATTEMPTS):
        out = tmp_path / f"out{attempt}"
        path = spec(tmp_path, backend, extra=f'"stressors.steal.params.steal_us" = [0, {STEAL_US}]\n')
        res = xtalk("run", path, "--out", out)
        assert res.returncode == 0, res.stderr
        try:
            return check_recovery(out)
        except AssertionError as err:  # the shared host disturbed it: show every attempt if all fail
            failures.append(f"attempt {attempt + 1}: {err}")
    raise AssertionError("\n".join(failures))


def test_native_host_steal_is_recovered_by_the_measurer(tmp_path):
    print("native:", recovered(tmp_path, "native"))


@pytest.mark.skipif(shutil.which("qemu-system-x86_64") is None, reason="qemu-system-x86_64 is not installed")
def test_qemu_host_steal_preempts_the_vcpu_and_is_recovered(tmp_path):
    print("qemu:", recovered(tmp_path, "qemu"))


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


def test_xen_refuses_host_stressors_before_anything_runs(tmp_path):
    res = xtalk("run", spec(tmp_path, "xen"), "--out", tmp_path / "out")
    assert res.returncode == 2, res.stderr
    assert "stressors[0].host" in res.stderr and "xen backend" in res.stderr, res.stderr
    assert "Traceback" not in res.stderr and not (tmp_path / "out").exists()
