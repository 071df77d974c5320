"""Stress in dom0 on the arm64 Xen lab (seed 002's set-up): a `host = true` stress_ng
stressor runs as a process group in dom0, on dom0's vCPU 1 (brought online and pinned to
pCPU 1, the measurer's: same-core). A CPU hog held until the timeline starts it at 1 s
and killed at 3 s of a 5 s run: the run passes, the timeline fired, the run's metadata
says where it ran, its command line and stress-ng's version. A stress-ng given an option
it does not know, started with the run: the run fails, naming the stressor, whose XT END
gives stress-ng's exit status (started by the timeline, its exit could come within one reading
of /proc, ~1-3 s in the busy lab, of the timeline's stop and pass for the stop's). After
each: no stress-ng left in dom0, vCPU 1 offline again, nothing left in dom0's work dir.
"""
from __future__ import annotations

import pytest

from tests.framework.cli import xtalk
from tests.framework.xen_lab import DOM0_STRESSOR, LAB_GROUP, campaign, events, left_in_dom0, run_on_lab, runs

pytestmark = [pytest.mark.full, pytest.mark.xen, pytest.mark.slow, LAB_GROUP["arm64"]]

GUESTS = """
[measurer]
bench = "timer_latency"
params = { sustain = 0 }
""" + DOM0_STRESSOR
TIMELINE = """
[[timeline]]
at_s = 1.0
action = "start"
target = "dom0"
[[timeline]]
at_s = 3.0
action = "stop"
target = "dom0"
"""


def test_stress_ng_in_dom0_on_a_timeline(arm64_lab, tmp_path):
    arch = arm64_lab
    spec, out = campaign(tmp_path, arch, duration=5, placements='["same-core"]', guests=GUESTS, timeline=TIMELINE)
    run_on_lab(spec, out, "a dom0 stressor on a timeline", timeout=600)
    meta = runs(out)["same-core-r1"]
    facts = meta["guests"]["dom0"]
    assert facts["where"] == "dom0" and facts["dom0_vcpus"] == [1] and facts["pcpus"] == [1]
    assert facts["argv"][:3] == ["taskset", "-c", "1"] and "bench=stress_ng" in facts["argv"]
    assert facts["cmd"].startswith("stress-ng --cpu 1 "), facts["cmd"]
    dom0 = meta["host_backend_metadata"]
    assert dom0["backend"] == "xen-dom0" and dom0["stress_ng_version"].startswith("stress-ng, version")
    # the shared lab: a cpupool swept after a killed xtalk left vCPU 1 unpinned (to all): pinned here, and said
    assert dom0["dom0_vcpus"] == {"1": 1} and dom0["dom0_vcpu_changes"][-1] == "vCPU 1 brought online"
    assert all(c.startswith("vCPU 1 pinned to pCPU 1 (was ") for c in dom0["dom0_vcpu_changes"][:-1])
    assert {r["vcpu"]: r["state"] for r in dom0["dom0_vcpu_list_after"]}[1] == "--p"  # offline again
    timeline = [(e["action"], e["planned_s"]) for e in events(out, "same-core-r1") if e["kind"] == "timeline"]
    assert timeline == [("start", 1.0), ("stop", 3.0)]
    watch = meta["stressors_watch"]["dom0"]
    assert watch["exit"] is None and {"action": "stop", "planned_s": 3.0, "took_effect": True,
                                      "detail": "gone"} in watch["timeline"], watch
    left_in_dom0(arch)


def test_a_dom0_stress_ng_that_fails_fails_its_run(arm64_lab, tmp_path):
    arch = arm64_lab
    spec, out = campaign(tmp_path, arch, duration=4, placements='["other-core"]',
                         guests=GUESTS.replace('class = "cpu"', 'class = "vm", opts = "--no-such-option"'))
    res = xtalk("run", spec, "--out", out, timeout=600)
    assert res.returncode == 3, res.stderr
    meta = runs(out)["other-core-r1"]
    assert meta["status"] == "fail" and "stressor dom0 exited (status 1)" in meta["reason"], meta["reason"]
    end = meta["stressors_watch"]["dom0"]["end"]  # its XT END, read by then
    assert end["status"] == "fail" and end["reason"] == "stress-ng exit status 1", end
    assert meta["guests"]["dom0"]["dom0_vcpus"] == [2]  # pCPU 2's vCPU
    left_in_dom0(arch)
