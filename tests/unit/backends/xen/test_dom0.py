"""xen backend, stressors in dom0: which dom0 vCPU runs each pCPU's stressor, the status
listing, and the remote scripts run against the local shell (dash; the lab's dom0 runs
busybox's, tests/integration/test_xen_dom0.py)."""
from __future__ import annotations

import subprocess
import time

import pytest

from xtalk.backends.xen.dom0 import KILL, LAUNCH, SIGNAL, STATUS, SWEEP, choose_vcpus, group_state, parse_status
from xtalk.backends.xen.xl import parse_vcpu_list
from xtalk.errors import InfrastructureError

VCPUS = """Name                                ID  VCPU   CPU State   Time(s) Affinity (Hard / Soft)
Domain-0                             0     0    0   r--      16.7  0 / all
Domain-0                             0     1    -   --p       8.3  1 / all
Domain-0                             0     2    -   --p       7.8  all / all
"""


def test_a_vcpu_pinned_to_the_pcpu_first_else_an_offline_one():
    rows = parse_vcpu_list(VCPUS)
    assert choose_vcpus(rows, [1]) == {1: 1}            # dom0_vcpus_pin: vCPU 1 is pCPU 1's
    assert choose_vcpus(rows, [0]) == {0: 0}            # dom0's own vCPU, where the placement says so
    assert choose_vcpus(rows, [1, 2]) == {1: 1, 2: 2}   # vCPU 2 (offline, unpinned) to be pinned to pCPU 2
    assert choose_vcpus(rows, [2]) == {2: 2}            # not vCPU 1: that one is pCPU 1's alone
    with pytest.raises(InfrastructureError, match="no vCPU for a stressor on pCPU 3.*dom0_max_vcpus"):
        choose_vcpus(rows[:2], [1, 3])


def test_status_listing():
    status = parse_status("pg 154 23 T\npg 160 480 SSR\nrc xtalk-1-r0-dom0.rc 3\nrc junk.rc x\n")
    assert status == {"groups": {154: (23, "T"), 160: (480, "SSR")}, "rc": {"xtalk-1-r0-dom0": 3}}
    assert [group_state(s) for s in ("TTT", "SSR", "SS")] == ["stopped", "running", "sleeping"]


def sh(script: str, *args: str) -> str:
    return subprocess.run(["sh", "-c", script, "test", *args], capture_output=True, text=True, timeout=30,
                          check=True).stdout


def test_scripts_launch_hold_signal_kill_and_sweep(tmp_path):
    d = str(tmp_path)
    held = int(sh(LAUNCH, d, "xtalk-9-r0-a", "1", "sleep", "60").split()[-1])
    assert parse_status(sh(STATUS, d, str(held)))["groups"][held][1] == "T"  # stopped before it ran sleep
    sh(SIGNAL, "CONT", str(held))
    time.sleep(0.3)
    assert group_state(parse_status(sh(STATUS, d, str(held)))["groups"][held][1]) == "sleeping"
    assert sh(KILL, str(held), f"{d}/xtalk-9-r0-a.log").strip() == "0"  # gone; its log's size
    assert parse_status(sh(STATUS, d, str(held)))["groups"] == {}
    done = int(sh(LAUNCH, d, "xtalk-9-r0-b", "0", "sh", "-c", "echo hi; exit 3").split()[-1])
    time.sleep(0.3)
    assert parse_status(sh(STATUS, d, str(done))) == {"groups": {}, "rc": {"xtalk-9-r0-b": 3}}
    assert (tmp_path / "xtalk-9-r0-b.log").read_text() == "hi\n"
    left = int(sh(LAUNCH, d, "xtalk-9-r1-c", "0", "sleep", "60").split()[-1])
    assert sh(SWEEP, d, "xtalk-9-r1").split() == ["xtalk-9-r1-c"]  # only that run's
    time.sleep(0.2)
    assert parse_status(sh(STATUS, d, str(left)))["groups"] == {}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["xtalk-9-r0-a.log", "xtalk-9-r0-a.pgid",
                                                          "xtalk-9-r0-b.log", "xtalk-9-r0-b.pgid", "xtalk-9-r0-b.rc"]
