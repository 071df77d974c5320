"""Faults on the wire between xtalk and a fleet (issue 44), on the loopback fleet lab
(tests/framework/fleet_lab.py): `xtalk run SPEC --fleet FLEET` runs in a network namespace
of the test's own (tests/framework/netem_link.py: nftables in the namespace, this kernel
having no netem) and reaches the coordinator, each board's sshd, the power switch and the
serial consoles through relays on the veth's host address, which the fleet file and the
exported places name. Faults: 10 % of the packets lost for the whole campaign; the link
cut for 5 s mid-run; the workers' ssh connections cut every 3 s. Each test counts and
prints: runs ok, runs failed with a reason (stored as such, or not run with the reason
xtalk gives), duplicates (an attempt stored or noted twice, or an attempt number skipped:
runs.ledger against the stored runs), lost samples of finished runs (meta.json), and
orphans (the workers, their benches, ssh clients and lease guards still running: by the
lab's paths in their command lines or environment, and the boards' sshd process trees).
Every planned run ends ok or failed with a reason; no duplicates, no lost samples, no
orphans.
Caveats: needs root (ip netns, nft) and sshd, else skipped with why. The fleet's workers
reach their boards without an ssh master connection (boards.py: ssh_argv(shared=False)),
so there is no master to kill: their TCP connections are cut at the relay instead, which
ssh sees as the board gone (status 255): each cut run fails as the board stopping, the
board is restarted once, then set aside, and the runs left are not run, with that reason.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

from tests.framework import netem_link
from tests.framework.cli import STARTED, XTALK, campaign_dir, small, wait_for
from tests.framework.fleet_checks import lab_for_module, metas, nothing_held, power_on_all, worker_running

pytestmark = [pytest.mark.slow, pytest.mark.full,
              pytest.mark.skipif(not (shutil.which("sshd") or Path("/usr/sbin/sshd").exists()),
                                 reason="needs openssh-server (scripts/setup.sh installs it)")]


@pytest.fixture(scope="module")
def link():
    why = netem_link.usable()
    if why:
        pytest.skip(why)
    with netem_link.FaultyLink() as made:
        yield made


@pytest.fixture(scope="module")
def lab(link, tmp_path_factory, native_bench):
    yield from lab_for_module(tmp_path_factory, reach=link.reach)


@pytest.fixture(autouse=True)
def boards_on(lab, link):
    power_on_all(lab)
    yield
    link.drop(0)


def duplicates(stored: Path, runs: dict[str, dict]) -> int:
    """Attempts noted twice in runs.ledger, attempt numbers skipped, and stored runs whose
    attempt is not the ledger's last of that run."""
    noted: dict[str, list[int]] = {}
    for line in (stored / "runs.ledger").read_text().splitlines():
        entry = json.loads(line)
        noted.setdefault(entry["run_id"], []).append(entry["attempt"])
    twice = sum(len(a) - len(set(a)) for a in noted.values())
    skipped = sum(max(a) - len(set(a)) for a in noted.values())
    astray = sum(1 for rid, m in runs.items() if m.get("attempt") != max(noted.get(rid, [None]), key=lambda a: a or 0))
    return twice + skipped + astray


def orphans(lab) -> list[str]:
    """Command lines of what a campaign left running: processes under the boards' sshd, or
    naming the lab (its key, its coordinator as xtalk reaches it) or a board's lock
    directory (set by the boards' sshd for their sessions: workers, benches)."""
    from tests.framework.fleet_lab import descendants
    lab_pids = {p.pid for p in lab.procs} | {b.proc.pid for b in lab.boards if b.on}
    pids = {pid for b in lab.boards if b.on for pid in descendants(b.proc.pid)}
    markers = (str(lab.root).encode() + b"/", lab.reached.encode())
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            seen = (proc / "cmdline").read_bytes() + b"\0" + (proc / "environ").read_bytes()
        except OSError:
            continue
        if any(m in seen for m in markers):
            pids.add(int(proc.name))
    out = []
    for pid in sorted(pids - lab_pids):
        try:
            out.append(Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip())
        except OSError:
            pass
    return out


def counted(lab, out: Path, summary: dict, fault: str, done: dict) -> dict:
    stored = campaign_dir(out)
    planned = json.loads((stored / "campaign.json").read_text())["planned_runs"]
    runs, not_run = metas(out), summary.get("not_run") or {}
    ok = [r for r in planned if runs.get(r, {}).get("status") == "pass"]
    failed = {r: (runs[r].get("reason") if r in runs else not_run.get(r)) for r in planned if r not in ok}
    end = time.monotonic() + 20  # what a campaign started ends with it, or soon after
    while (left := orphans(lab)) and time.monotonic() < end:
        time.sleep(0.5)
    counts = {"planned": len(planned), "runs ok": len(ok), "runs failed with a reason": sum(map(bool, failed.values())),
              "duplicates": duplicates(stored, runs),
              "lost samples": sum(m.get("lost_samples") or 0 for m in runs.values() if m["status"] == "pass"),
              "orphans": len(left), **done}
    print(f"\n{fault}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    for rid, why in failed.items():
        print(f"  {rid}: {why}")
    for cmd in left:
        print(f"  orphan: {cmd}")
    return counts


def run_with(lab, link, tmp_path, fault) -> tuple[subprocess.Popen, str, dict]:
    """The campaign (6 runs of 4 s over the two boards) run from inside the namespace,
    `fault(lab, link, stop)` applied while it runs (what it did: {what: how many}, into
    the counts; an error of its own fails the test)."""
    out = tmp_path / "out"
    spec = small(tmp_path, duration=4, reps=3, iterations=0)
    proc = subprocess.Popen(link.argv(*XTALK, "run", str(spec), "--fleet", str(lab.fleet()), "--out", str(out),
                                      "--json"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    STARTED.append(proc)
    stop, done = threading.Event(), {}

    def apply() -> None:
        try:
            done.update(fault(lab, link, stop))
        except BaseException as err:  # noqa: BLE001 - told to the test below
            done["error"] = repr(err)

    def watch() -> None:  # the orphan finder sees the campaign's processes while they run
        while not stop.wait(0.5):
            done["most processes seen"] = max(done.get("most processes seen", 0), len(orphans(lab)))

    threads = [threading.Thread(target=apply, daemon=True), threading.Thread(target=watch, daemon=True)]
    for t in threads:
        t.start()
    try:
        stdout, stderr = proc.communicate(timeout=600)
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=30)
    assert campaign_dir(out) is not None, f"the campaign did not start (exit {proc.returncode}): {stderr[-3000:]}"
    try:
        summary = json.loads(stdout)
    except ValueError:
        raise AssertionError(f"no summary (exit {proc.returncode}): {stdout[-2000:]} {stderr[-3000:]}") from None
    assert "error" not in done, f"the fault was not applied: {done['error']}"
    return proc, stderr, counted(lab, out, summary, fault.__name__, done)


def packets_dropped(link, apply) -> dict:
    before = link.dropped
    apply()
    link.drop(0)
    return {"packets dropped": link.dropped - before}


def loss_10_percent(lab, link, stop):
    return packets_dropped(link, lambda: (link.drop(10), stop.wait()))


def partition_5_s_mid_run(lab, link, stop):
    wait_for(lambda: stop.is_set() or any(worker_running(b) for b in lab.boards), 300, "a run on a board")
    return packets_dropped(link, lambda: stop.wait(1.0) or link.partition(5))


def ssh_connections_cut_every_3_s(lab, link, stop):
    """The workers use no ssh master connection (boards.py: ssh_argv(shared=False)): their
    connections to the boards' sshd are cut instead."""
    cut = 0
    while not stop.wait(3.0):
        cut += link.cut(*(b.port for b in lab.boards))
    return {"ssh connections cut": cut}


@pytest.mark.parametrize("fault", [loss_10_percent, partition_5_s_mid_run, ssh_connections_cut_every_3_s],
                         ids=lambda f: f.__name__)
def test_a_faulty_link_to_the_fleet_loses_and_duplicates_nothing(lab, link, tmp_path, fault):
    proc, stderr, counts = run_with(lab, link, tmp_path, fault)
    assert counts["planned"] == 6, counts
    assert counts["runs ok"] + counts["runs failed with a reason"] == 6, (counts, stderr[-3000:])
    assert (counts["duplicates"], counts["lost samples"], counts["orphans"]) == (0, 0, 0), counts
    assert proc.returncode in (0, 3), stderr[-3000:]
    assert counts.get("packets dropped", counts.get("ssh connections cut")), counts  # the fault hit xtalk's traffic
    assert counts["most processes seen"] > 0, counts
    assert wait_for(lambda: nothing_held(lab), 30, "the places given back")
