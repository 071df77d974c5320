"""What the fleet tests look at: the runs a campaign stored, whether the loopback lab
(fleet_lab.py) still holds a place, the workers and lease guards still running, and
whether a board's worker runs. Light to import (no labgrid): test modules take it at
collection."""
from __future__ import annotations

import json
from pathlib import Path

from tests.framework.cli import campaign_dir


def lab_for_module(tmp_path_factory, **options):
    """The body of a module's `lab` fixture: the loopback fleet lab (fleet_lab.py), made,
    yielded, closed."""
    from tests.framework.fleet_lab import FleetLab
    lab = FleetLab(tmp_path_factory.mktemp("lab"), **options)
    yield lab
    lab.close()


def power_on_all(lab) -> None:
    for board in lab.boards:
        board.power_on()


def metas(out: Path) -> dict[str, dict]:
    """Every stored attempt's meta.json, by its run directory's name."""
    return {p.parent.name: json.loads(p.read_text()) for p in (campaign_dir(out) / "runs").glob("*/meta.json")}


def nothing_held(lab) -> bool:
    return lab.client("who").strip().splitlines()[1:] == [] and lab.client("reservations").strip() == ""


LAB_MARK = "XTALK_TEST_FLEET_LAB"  # in the environment of a lab's workers: the lab's directory (fleet_lab.py)


def workers(lab) -> list[str]:
    """Command lines of the lab's xtalk workers (a crafted one too) and lease guards still
    running: a worker whose environment names the lab (LAB_MARK, which its fleet file's
    worker_command sets), a guard of the lab's coordinator. Not another test's, which the
    other xdist worker may be running meanwhile (test_record_contract's worker, another lab's)."""
    mark = f"{LAB_MARK}={lab.root}".encode()
    out = []
    for proc in Path("/proc").iterdir():
        try:
            cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            if "xtalk.fleet.guard" in cmd:
                mine = lab.reached in cmd
            elif "xtalk.cli.main worker" in cmd or "tests.framework.crafted_tar" in cmd:
                mine = mark in (proc / "environ").read_bytes().split(b"\0")
            else:
                continue
        except OSError:
            continue
        if mine:
            out.append(cmd)
    return out


def worker_running(board) -> bool:
    """The board's `xtalk worker` itself runs (its login shell is done)."""
    from tests.framework.fleet_lab import descendants
    for pid in descendants(board.proc.pid) if board.on else []:
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if Path(argv[0].decode()).name.startswith("python") and b"worker" in argv:
            return True
    return False
