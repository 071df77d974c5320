"""The qemu backend against real QEMU (KVM where /dev/kvm works, else TCG): pinning,
exact timelines, a killed QEMU, a hung guest. Every test checks no QEMU survives."""
from __future__ import annotations

import json
import os
import shutil
import signal
import time

import numpy as np
import pytest

from tests.framework.cli import alive, campaign_dir, guest_pids, run_meta, start, wait_for, write_spec, xtalk
from xtalk.results.query import connect
from xtalk.results.store import CampaignStore

pytestmark = pytest.mark.skipif(shutil.which("qemu-system-x86_64") is None,
                                reason="qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)")

SPEC = """
name = "q"
cpus = [0, 1]
[backend]
kind = "qemu"
[run]
duration_s = {duration}
grace_s = 3
[measurer]
bench = "{bench}"
iterations = {iterations}
params = {{ {params} }}
[[stressors]]
name = "stress"
bench = "{stressor}"
[matrix]
placement = {placements}
"""


def spec(tmp_path, duration=3, bench="qsort", iterations=0, params="size_kib = 256",
         stressor="cpu_spin", placements='["solo", "same-core"]', extra=""):
    return write_spec(tmp_path, SPEC.format(duration=duration, bench=bench, iterations=iterations, params=params,
                                            stressor=stressor, placements=placements) + extra)


def assert_no_qemu_left(out):
    pids = guest_pids(out)
    assert pids, "no guest was started"
    wait_for(lambda: not any(alive(p) for p in pids.values()), 5, "every QEMU to be gone")


def test_guests_are_pinned_and_samples_arrive_through_the_ring(tmp_path):
    out = tmp_path / "out"
    res = xtalk("run", spec(tmp_path, iterations=30), "--out", out)
    assert res.returncode == 0, res.stderr
    meta = run_meta(out, "same-core-r1")
    assert meta["status"] == "pass" and meta["sample_count"] == 30 and meta["lost_samples"] == 0
    for guest in ("measurer", "stress"):
        vcpus = meta["guests"][guest]["vcpus"]
        assert [v["cpu"] for v in vcpus] == [0], vcpus
    backend = meta["backend_metadata"]
    assert backend["accel"] in ("kvm", "tcg") and backend["accel_reason"]
    assert backend["qemu_version"].startswith("QEMU emulator version")
    assert (campaign_dir(out) / "runs" / "same-core-r1" / "qemu-measurer.log").exists()
    assert_no_qemu_left(out)


@pytest.mark.timing
def test_stress_window_drops_throughput_and_events_match_the_timeline(tmp_path):
    extra = ('[[timeline]]\nat_s = 2\naction = "start"\ntarget = "stress"\n'
             '[[timeline]]\nat_s = 4\naction = "stop"\ntarget = "stress"\n')
    out = tmp_path / "out"
    path = spec(tmp_path, duration=6, bench="qsort", params="size_kib = 64", placements='["same-core"]', extra=extra)
    res = xtalk("run", path, "--out", out)
    assert res.returncode == 0, res.stderr
    con = connect(CampaignStore(campaign_dir(out)))
    events = con.execute("SELECT action, t_s, planned_s FROM events WHERE kind='timeline' ORDER BY t_s").fetchall()
    assert [e[0] for e in events] == ["start", "stop"]
    for action, t_s, planned in events:
        # the event lands at its time: 20-30 ms late happens on a busy 2-vCPU host (measured,
        # kept per event as error_ms); 0.1 s still tells a mis-scheduled event from a late one
        assert abs(t_s - planned) < 0.1, (action, t_s, planned)
    t = np.array([r[0] for r in con.execute("SELECT t_s FROM samples WHERE NOT isnan(t_s)").fetchall()])
    assert len(t) > 100
    rate = lambda lo, hi: ((t >= lo) & (t < hi)).sum() / (hi - lo)  # noqa: E731
    before, during, after = rate(0.5, 1.8), rate(2.3, 3.8), rate(4.3, 5.8)
    assert during < 0.75 * before, (before, during, after)  # the neighbour takes its share
    assert after > 1.25 * during, (before, during, after)   # and gives it back when stopped
    assert_no_qemu_left(out)


@pytest.mark.slow
def test_killed_qemu_and_hung_guest_fail_their_runs_and_the_campaign_goes_on(tmp_path):
    out = tmp_path / "out"
    hung = spec(tmp_path, duration=1, bench="cpu_spin", params="duration_s = 0",
                placements='["same-core", "solo", "other-core"]')
    proc = start("run", hung, "--out", out)
    pid = wait_for(lambda: guest_pids(out).get("same-core-r1/measurer"), 30, "the first QEMU")
    time.sleep(0.3)
    os.kill(pid, signal.SIGKILL)
    assert proc.wait(timeout=120) == 3, proc.stderr.read()  # runs failed: exit 3, the campaign went on
    killed = run_meta(out, "same-core-r1")
    assert killed["status"] == "fail" and "without XT END" in killed["reason"], killed
    for run_id in ("solo-r1", "other-core-r1"):
        meta = run_meta(out, run_id)
        assert meta["status"] == "fail" and meta["reason"].startswith("hung"), meta
        assert meta["sample_count"] > 0
    assert_no_qemu_left(out)
    assert json.loads((campaign_dir(out) / "campaign.json").read_text())["planned_runs"] == [
        "same-core-r1", "solo-r1", "other-core-r1"]


def test_pc_machine_two_stressor_vms_and_pause_resume(tmp_path):
    extra = ('[[timeline]]\nat_s = 1\naction = "pause"\ntarget = "stress"\n'
        '[[timeline]]\nat_s = 2\naction = "resume"\ntarget = "stress"\n')
    text = spec(tmp_path, duration=3, placements='["other-core"]', extra=extra).read_text()
    text = text.replace('kind = "qemu"', 'kind = "qemu"\nmachine = "pc"').replace(
        'bench = "cpu_spin"', 'bench = "cpu_spin"\ninstances = 2')
    out = tmp_path / "out"
    res = xtalk("run", write_spec(tmp_path, text), "--out", out)
    assert res.returncode == 0, res.stderr
    meta = run_meta(out, "other-core-r1")
    assert meta["status"] == "pass", meta
    assert meta["backend_metadata"]["machine"] == "pc"
    assert sorted(meta["guests"]) == ["measurer", "stress", "stress-2"]
    assert all(meta["guests"][g]["affinity"] == [1] for g in ("stress", "stress-2"))
    con = connect(CampaignStore(campaign_dir(out)))
    events = con.execute("SELECT action, t_s - planned_s FROM events WHERE kind='timeline' ORDER BY t_s").fetchall()
    # two VMs stopped one after the other over QMP (vCPUs busy in emulated firmware): looser than 20 ms
    assert [e[0] for e in events] == ["pause", "resume"] and all(abs(e[1]) < 0.1 for e in events), events
    assert_no_qemu_left(out)


@pytest.mark.timing
def test_physics_same_core_thrash_slows_qsort_and_pointer_chase(tmp_path):
    """Probe guests under QEMU: a cache-thrashing VM on the same core costs the measurer."""
    text = spec(tmp_path, duration=2, params="", stressor="cache_thrash", placements='["solo", "same-core"]',
                extra='start_order = ["stressor-first"]\n"measurer.bench" = ["qsort", "pointer_chase"]\n').read_text()
    out = tmp_path / "out"
    res = xtalk("run", write_spec(tmp_path, text.replace("params = {  }\n", "")), "--out", out, "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["passed"] == 4
    stats = {(r["config_id"], r["metric"]): r["median"] for r in
             json.loads(xtalk("show", "q", "--out", out, "--json").stdout)["stats"]}
    for bench in ("qsort", "pointer_chase"):
        solo, same = stats[(f"solo_bench-{bench}", bench)], stats[(f"same-core_bench-{bench}", bench)]
        assert same > 1.3 * solo, (bench, solo, same)
    assert_no_qemu_left(out)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
def test_killing_xtalk_leaves_no_qemu(tmp_path, sig):
    out = tmp_path / "out"
    proc = start("run", spec(tmp_path, duration=5, placements='["same-core"]'), "--out", out)
    wait_for(lambda: guest_pids(out).get("same-core-r1/stress") and guest_pids(out).get("same-core-r1/measurer"),
             30, "both QEMUs")
    time.sleep(0.5)
    proc.send_signal(sig)
    assert proc.wait(timeout=30) == (130 if sig == signal.SIGINT else -9)
    assert_no_qemu_left(out)
    meta = run_meta(out, "same-core-r1")
    assert meta["status"] == ("interrupted" if sig == signal.SIGINT else "running")
    assert (campaign_dir(out) / "runs" / "same-core-r1" / "samples.bin").stat().st_size > 0
