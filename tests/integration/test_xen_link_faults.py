"""Faults on the wire between xtalk and dom0 (issue 44), in the Xen lab: xtalk drives the
lab's dom0 over ssh through a link of the test's own network namespace
(tests/framework/netem_link.py: nftables in the namespace, this kernel having no netem)
that loses 10 % of its packets, or is cut for 5 s mid-run, or whose ssh master connection is killed every 3 s. Each test counts and
prints: runs ok, runs failed with a reason, duplicated domains (Xen numbers domains in
the order they are made: a domain made twice leaves a gap), lost samples of finished runs,
and ssh processes left (orphans; the master connection ssh keeps for reuse, ControlPersist,
ends by itself 60 s after its last use and is counted apart). Every run ends ok or failed
with its reason; no duplicates, no lost samples, no orphans.
"""
from __future__ import annotations

import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest

from tests.framework import netem_link
from tests.framework.cli import XTALK, campaign_dir, wait_for
from tests.framework.xen_lab import LAB_GROUP, campaign, runs, xtalk_domains

pytestmark = [pytest.mark.full, pytest.mark.xen, pytest.mark.slow, LAB_GROUP["arm64"]]


@pytest.fixture
def link(arm64_lab):
    from xtalk.lab.vm import current
    why = netem_link.usable()
    if why:
        pytest.skip(why)
    lab = current(arm64_lab)
    with netem_link.FaultyLink(lab.state["ssh_port"]) as made:
        made.image = lab.image.dir
        yield made


def over_link(tmp_path, link) -> tuple:
    """The lab campaign of 3 runs with dom0 reached over the link (executor ssh)."""
    known = tmp_path / "known_hosts"
    key = (link.image / "known_hosts").read_text().split(None, 1)[1]
    known.write_text(f"[{link.host_ip}]:{link.port} {key}")
    reach = (f'executor = "ssh"\nssh_host = "root@{link.host_ip}"\nssh_port = {link.port}\n'
             f'ssh_identity = "{link.image / "id_ed25519"}"\nssh_known_hosts = "{known}"\n')
    spec, out = campaign(tmp_path, "arm64", duration=4, placements='["solo", "other-core", "same-core"]')
    spec.write_text(spec.read_text().replace('executor = "lab"\n', reach))
    return spec, out


def counted(out, control_dir, fault: str) -> dict:
    stored = runs(out)
    ok = [r for r, m in stored.items() if m["status"] == "pass"]
    failed = {r: m.get("reason") for r, m in stored.items() if m["status"] != "pass"}
    domids = sorted(d["domid"] for m in stored.values()
                    for d in ((m.get("backend_metadata") or {}).get("domains") or {}).values() if d.get("domid"))
    counts = {"runs ok": len(ok), "runs failed with a reason": sum(1 for why in failed.values() if why),
              "duplicates": (domids[-1] - domids[0] + 1 - len(domids)) if domids else 0,
              "lost samples": sum(m.get("lost_samples") or 0 for m in stored.values() if m["status"] == "pass"),
              "orphans": len([p for p in netem_link.ssh_processes(control_dir) if not netem_link.is_master(p)]),
              "masters kept for reuse": len([p for p in netem_link.ssh_processes(control_dir)
                                             if netem_link.is_master(p)]),
              "runs": len(stored), "failed": failed}
    print(f"\n{fault}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return counts


def run_with(link, tmp_path, fault):
    """The campaign over the link, `fault(link, control_dir, stop, out)` applied while it
    runs; xtalk's TMPDIR is control_dir (its ssh control sockets, to find its masters)."""
    spec, out = over_link(tmp_path, link)
    control = Path(tempfile.mkdtemp(prefix="xtl", dir="/tmp"))  # short: a Unix socket's path is 108 bytes at most
    proc = subprocess.Popen(link.argv("env", f"TMPDIR={control}", *XTALK, "run", str(spec), "--out", str(out)),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stop = threading.Event()
    worker = threading.Thread(target=fault, args=(link, control, stop, out), daemon=True)
    worker.start()
    try:
        _, stderr = proc.communicate(timeout=900)
    finally:
        stop.set()
        worker.join(timeout=30)
        if proc.poll() is None:
            proc.kill()
    time.sleep(1)  # ControlPersist masters end with their last client
    shutil.rmtree(control, ignore_errors=True)
    assert campaign_dir(out) is not None, f"the campaign did not start (exit {proc.returncode}): {stderr[-3000:]}"
    return proc, stderr, counted(out, control, fault.__name__)


def loss_10_percent(link, control, stop, out):
    link.drop(10)
    stop.wait()
    link.drop(0)


def partition_5_s_mid_run(link, control, stop, out):
    wait_for(lambda: stop.is_set() or (campaign_dir(out) and (campaign_dir(out) / "runs" / "other-core-r1").is_dir()),
             600, "the second run")
    time.sleep(3)
    link.partition(5)


def master_dropped_every_3_s(link, control, stop, out):
    dropped: list[int] = []
    netem_link.drop_masters(control, 3.0, stop, dropped)
    print(f"\nmasters killed: {len(dropped)}")


@pytest.mark.parametrize("fault", [loss_10_percent, partition_5_s_mid_run, master_dropped_every_3_s],
                         ids=lambda f: f.__name__)
def test_a_faulty_link_loses_and_duplicates_nothing(link, tmp_path, fault):
    proc, stderr, counts = run_with(link, tmp_path, fault)
    print(f"packets dropped: {link.dropped}")
    assert fault is master_dropped_every_3_s or link.dropped > 0  # the fault happened
    assert counts["runs"] == 3, stderr
    assert counts["runs ok"] + counts["runs failed with a reason"] == 3, counts
    assert (counts["duplicates"], counts["lost samples"], counts["orphans"]) == (0, 0, 0), counts
    assert proc.returncode in (0, 3), stderr
    assert xtalk_domains("arm64") == []
