"""Leftovers of a SIGKILLed xtalk (src/xtalk/files.py, results/reserve.py, the rings of
backends/native.py): the `.report.*.partial` of a report killed midway (swept by the next
report), the /dev/shm ring of a killed campaign (removed when the next campaign starts), the
64 MiB reserved past a killed run's samples.bin (freed when --resume recovers the run),
and planted `.partial` / `.old` directories of a dead writer (swept by the next write of
the name) next to one whose writer is alive (left alone). Earlier attempts
(`runs/<run>.attemptN`) are kept on purpose and not counted.
"""
from __future__ import annotations

import os
import socket
import zlib
from pathlib import Path

from harness import OK, Case, area, kill_only, spec, wait_for
from store import check_waste, only_campaign, reserved_waste, running_run

case = area("leftovers")
HOST_TAG = f"{zlib.crc32(socket.gethostname().encode()):08x}"  # files.py's writer token: host, PID, random


def killed_at(c: Case, ready, *args: str) -> int:
    proc = c.start(*args)
    wait_for(lambda: proc.poll() is not None or ready(proc), 60, step=0.01)
    kill_only(proc)
    c.finish(proc, expect=(-9, OK), timeout=5)
    c.orphans(grace_s=5, when="5 s after xtalk was SIGKILLed")
    return proc.pid


@case("partial-report-of-a-killed-report-is-swept")
def _(c: Case):
    c.xtalk("run", spec(c), "--out", c.out, expect=(OK,))
    campaign = only_campaign(c.out)
    killed_at(c, lambda p: any(campaign.glob(".report.*.partial")), "report", campaign)
    left = list(campaign.glob(".report.*"))
    c.note(f"{len(left)} partial report(s) after the kill")
    c.xtalk("report", campaign, "--no-samples", expect=(OK,))
    left = [p.name for p in campaign.glob(".report.*")]
    c.check(not left, "wrong", f"left after the next report: {left}")


@case("ring-of-a-sigkilled-campaign-is-removed-by-the-next")
def _(c: Case):
    pid = killed_at(c, lambda p: running_run(c.out) and list(Path("/dev/shm").glob(f"xtalk-{p.pid}-*")),
                    "run", spec(c, duration=2.0), "--out", c.out)
    rings = list(Path("/dev/shm").glob(f"xtalk-{pid}-*"))
    c.note(f"{len(rings)} ring(s) of PID {pid} after the kill")
    c.xtalk("run", spec(c, name="next", placements=("solo",), file="next.toml"), "--out", c.dir / "out2",
            expect=(OK,))
    left = [p.name for p in Path("/dev/shm").glob(f"xtalk-{pid}-*")]
    c.check(not left, "wrong", f"rings of the killed xtalk left after the next campaign: {left}")


@case("reserved-blocks-of-a-killed-run-are-freed-by-resume")
def _(c: Case):
    path = spec(c, duration=2.0)
    killed_at(c, lambda p: running_run(c.out) and reserved_waste(c.out), "run", path, "--out", c.out)
    c.note(f"reserved after the kill: {[(p, w >> 20) for p, w in reserved_waste(c.out)]} MiB")
    c.xtalk("run", path, "--out", c.out, "--resume", expect=(OK,))
    check_waste(c, c.out)


@case("planted-partial-and-old-of-a-dead-writer-are-swept")
def _(c: Case):
    c.xtalk("run", spec(c, placements=("solo",)), "--out", c.out, "--report", expect=(OK,))
    campaign = only_campaign(c.out)
    dead = 4194000
    while Path(f"/proc/{dead}").exists():
        dead -= 1
    planted = [campaign / f".report.{HOST_TAG}-{dead}-0badf00d.{kind}" for kind in ("partial", "old")]
    live = campaign / f".report.{HOST_TAG}-{os.getpid()}-0badf00d.partial"  # its writer (this probe) is alive
    for d in [*planted, live]:
        d.mkdir()
        (d / "report.html").write_text("half a report")
    c.xtalk("report", campaign, "--no-samples", expect=(OK,))
    c.check(not any(p.exists() for p in planted), "wrong",
            f"a dead writer's leftovers were not swept: {[p.name for p in planted if p.exists()]}")
    c.check(live.exists(), "data lost", f"{live.name} of a live writer was removed")
