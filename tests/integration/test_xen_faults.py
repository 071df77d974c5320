"""Faults in the Xen lab (issue 44): dom0 frozen mid-run (its emulator stopped with
SIGSTOP). The run in progress fails as an infrastructure error that says dom0 stopped
answering and since when; before the next run the backend boots the lab again and the
campaign goes on; the decision is in that run's metadata. Counted and printed: runs ok,
runs failed with a reason, domains left, orphan processes. The decision is in campaign.json
(`targets`), `xtalk show` and the report.
"""
from __future__ import annotations

import json
import os
import signal

import pytest

from tests.framework.cli import campaign_dir, start, wait_for, xtalk
from tests.framework.xen_lab import LAB_GROUP, campaign, measurer_running, runs, xtalk_domains

pytestmark = [pytest.mark.full, pytest.mark.xen, pytest.mark.slow, LAB_GROUP["arm64"]]


def lab_pid() -> int:
    from xtalk.lab.vm import current
    return current("arm64").state["pid"]


def test_a_dom0_frozen_mid_run_fails_that_run_and_the_lab_is_booted_again_for_the_next(arm64_lab, tmp_path):
    spec, out = campaign(tmp_path, arm64_lab, duration=4, placements='["solo", "other-core", "same-core"]')
    proc = start("run", spec, "--out", out)
    wait_for(lambda: (campaign_dir(out) or out).joinpath("runs", "solo-r1", "meta.json").exists(), 300,
             "the first run")
    wait_for(lambda: (campaign_dir(out) / "runs" / "other-core-r1").is_dir(), 300, "the second run")
    measurer_running(arm64_lab, "the second run's measurer")
    frozen = lab_pid()
    os.kill(frozen, signal.SIGSTOP)  # dom0, Xen and the domUs stop; the link's other end goes silent
    try:
        stdout, stderr = proc.communicate(timeout=900)
    finally:
        if os.path.exists(f"/proc/{frozen}"):
            os.kill(frozen, signal.SIGCONT)
    stored = runs(out)
    ok = [r for r, m in stored.items() if m["status"] == "pass"]
    failed = {r: m.get("reason", "") for r, m in stored.items() if m["status"] != "pass"}
    orphans = [p for p in (frozen,) if os.path.exists(f"/proc/{p}")]
    print(f"\ndom0 frozen mid-run: runs ok {len(ok)}, runs failed with a reason {len(failed)} {failed}, "
          f"domains left {len(xtalk_domains(arm64_lab))}, orphans {len(orphans)}")
    assert proc.returncode == 3, stderr  # a run failed
    assert sorted(ok) == ["same-core-r1", "solo-r1"] and list(failed) == ["other-core-r1"], failed
    assert "dom0 (lab arm64) stopped answering: no answer since" in failed["other-core-r1"]
    (decision,) = stored["same-core-r1"]["backend_metadata"]["target"]
    assert decision["state"] == "restarted" and "stopped answering" in decision["reason"], decision
    assert lab_pid() != frozen and orphans == [] and xtalk_domains(arm64_lab) == []
    (kept,) = json.loads((campaign_dir(out) / "campaign.json").read_text())["targets"]["dom0 (lab arm64)"]
    assert kept == decision  # in campaign.json, and in show and the report's doubts
    shown = xtalk("show", campaign_dir(out).name, "--out", out)
    assert "targets restarted after they stopped answering" in shown.stdout
    assert "dom0 (lab arm64): restarted at" in " ".join(shown.stdout.split()), shown.stdout
