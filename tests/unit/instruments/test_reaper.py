"""instruments/reaper.py: a capture program's whole process tree ends with it. Issue 43's five
orphans: a background child of a shell program, a child that ignores INT and TERM, one started
with setsid, the child of a program that exits by itself; and the tree of a SIGKILLed owner
(test_program.py)."""
from __future__ import annotations

import signal
import subprocess
import time

from tests.framework.cli import gone
from xtalk.instruments import reaper


def pids_in(path, names: list[str], timeout_s: float = 10.0) -> list[int]:
    """The PIDs the program wrote, one file each, once they are all there."""
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        texts = [(path / n).read_text().strip() if (path / n).exists() else "" for n in names]
        if all(texts):
            return [int(t) for t in texts]
        time.sleep(0.02)
    raise AssertionError(f"the program did not write {names}")


def test_no_child_outlives_a_stopped_program_whatever_it_does_with_signals_or_sessions(tmp_path):
    script = (f"sleep 300 & echo $! > {tmp_path}/bg; "
              f"setsid sleep 300 & echo $! > {tmp_path}/sid; "
              f"(trap '' INT TERM; exec sleep 300) & echo $! > {tmp_path}/deaf; "
              "wait")
    with open(tmp_path / "out", "wb") as out:
        process = reaper.start(["sh", "-c", script], out, out)
    children = pids_in(tmp_path, ["bg", "sid", "deaf"])
    status = reaper.end(process, signal.SIGINT, 5.0)
    assert status == -signal.SIGINT  # the program's own status, as xtalk reads it
    assert all(gone(pid) for pid in children), children


def test_the_children_of_a_program_that_ended_by_itself_go_with_it(tmp_path):
    with open(tmp_path / "out", "wb") as out:
        process = reaper.start(["sh", "-c", f"sleep 300 & echo $! > {tmp_path}/left; exit 3"], out, out)
    (left,) = pids_in(tmp_path, ["left"])
    assert process.wait(10) == 3 and gone(left)
    assert reaper.end(process, signal.SIGINT, 5.0) == 3


def test_a_program_deaf_to_its_stop_signal_is_killed_with_its_tree(tmp_path):
    with open(tmp_path / "out", "wb") as out:
        process = reaper.start(["sh", "-c", f"trap '' INT; sleep 300 & echo $! > {tmp_path}/child; wait; wait"],
                               out, out)
    (child,) = pids_in(tmp_path, ["child"])
    started = time.monotonic()
    assert reaper.end(process, signal.SIGINT, 0.5) == -signal.SIGKILL
    assert gone(child) and time.monotonic() - started < 5


def test_a_program_that_does_not_exist_says_so_on_its_stderr(tmp_path):
    with open(tmp_path / "err", "wb") as err:
        process = reaper.start(["/no/such/capture"], subprocess.DEVNULL, err)
    assert process.wait(10) == 127
    assert "/no/such/capture: No such file or directory" in (tmp_path / "err").read_text()
