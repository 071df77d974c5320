"""The gate's smoke of the arm64 Xen lab (`make test`; the full lab groups are `make test-all`'s):
the lab booted once (by a test that shares the host: a boot measures nothing, so it is not
inside the smoke's time alone and may run beside the other worker's tests), and one short campaign
with both kinds of neighbour and a timeline. The measurer and a cache thrasher are domUs on
pCPU 1, a stress_ng CPU hog runs in dom0 on dom0's vCPU 1 (pinned to pCPU 1); the timeline
starts the dom0 hog, pauses and resumes the domU one, and stops the dom0 hog. The run
passes, every event fired in order and took effect, the lateness is within what its dom0
commands take at the lab's measured pace, and nothing of the run is left in dom0.
"""
from __future__ import annotations

import pytest

from tests.framework.cli import xtalk
from tests.framework.lab_pace import DomZeroPace
from tests.framework.xen_lab import (DOM0_STRESSOR, LAB_GROUP, PROBE_GUESTS, campaign, left_in_dom0, run_on_lab, runs,
                                     timeline_lateness)

pytestmark = [pytest.mark.slow, LAB_GROUP["arm64"]]

GUESTS = PROBE_GUESTS + DOM0_STRESSOR  # qsort beside cache_thrash (domUs) and stress_ng (dom0)
PLANNED = [("start", "dom0", 1.0), ("pause", "thrash", 2.0), ("resume", "thrash", 3.5), ("stop", "dom0", 4.5)]
TIMELINE = "".join(f'[[timeline]]\nat_s = {at}\naction = "{action}"\ntarget = "{target}"\n'
                   for action, target, at in PLANNED)


def test_the_lab_boots_and_its_dom0_answers(arm64_lab):
    """The group's first test (conftest.py orders a lab group's shared tests first): the boot."""
    status = xtalk("lab", "status")
    assert status.returncode == 0 and f"{arm64_lab}: running, Xen debian," in status.stdout, status.stdout


@pytest.mark.xen  # alone: a TCG Xen lab's vCPUs need the host's CPUs (conftest.py's runs_alone)
def test_a_domu_and_a_dom0_stressor_on_a_timeline(arm64_lab, tmp_path):
    arch = arm64_lab
    # 10 s; a late last event (the resume planned at 3.5 s was done at 12.4 s of a window that ended at 15.0 s
    # on a loaded day) is judged by readings after the window (watch.py, JUDGE_AFTER_S)
    spec, out = campaign(tmp_path, arch, duration=10, placements='["same-core"]', guests=GUESTS, timeline=TIMELINE)
    with DomZeroPace(arch) as pace:
        run_on_lab(spec, out, "the lab's smoke campaign", timeout=600)
    meta = runs(out)["same-core-r1"]
    assert meta["status"] == "pass" and meta["sample_count"] > 0 and meta["lost_samples"] == 0, meta["reason"]
    bm = meta["backend_metadata"]
    assert bm["backend"] == "xen" and bm["xen_version"].startswith("4.17")
    pins = {v["name"].rsplit("-", 1)[1]: v["hard_affinity"] for v in bm["vcpu_list"]}
    assert pins["measurer"] == "1" and pins["thrash"] == "1"
    dom0 = meta["guests"]["dom0"]
    assert dom0["where"] == "dom0" and dom0["dom0_vcpus"] == [1] and dom0["pcpus"] == [1]
    late = timeline_lateness(out, "same-core-r1", meta, PLANNED, pace)
    watch = meta["stressors_watch"]
    # each event is judged; the pause may be said unjudged (None) where the resume came before it settled
    assert [(e["action"], e["took_effect"]) for e in watch["thrash"]["timeline"]] in (
        [("pause", True), ("resume", True)], [("pause", None), ("resume", True)]), watch["thrash"]
    pause = watch["thrash"]["timeline"][0]
    assert pause["took_effect"] or pause["detail"] == "not checked: resume at 3.5 s came before it settled", pause
    print(f"thrash's timeline as the watch judged it (the pause done {late[1]:.2f} s late): {watch['thrash']['timeline']}")
    assert {"action": "stop", "planned_s": 4.5, "took_effect": True, "detail": "gone"} in watch["dom0"]["timeline"], \
        watch["dom0"]
    left_in_dom0(arch)
