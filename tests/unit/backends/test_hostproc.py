"""hostproc.spawn: the program runs on the CPUs asked for, in its own session, and dies
with xtalk even when xtalk is SIGKILLed; the starting thread's own affinity is given back."""
from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from xtalk.backends import hostproc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


@pytest.mark.parametrize("setpriv", [hostproc.SETPRIV, None], ids=["setpriv", "preexec"])
def test_the_program_is_pinned_in_its_own_session_and_xtalk_keeps_its_cpus(monkeypatch, setpriv):
    monkeypatch.setattr(hostproc, "SETPRIV", setpriv)
    cpu = max(os.sched_getaffinity(0))
    before = os.sched_getaffinity(0)
    proc = hostproc.spawn(["sleep", "30"], (cpu,))
    try:
        deadline = time.monotonic() + 5
        while open(f"/proc/{proc.pid}/comm").read().strip() != "sleep" and time.monotonic() < deadline:
            time.sleep(0.01)  # setpriv execs sleep in the same process
        assert open(f"/proc/{proc.pid}/comm").read().strip() == "sleep"
        assert os.sched_getaffinity(proc.pid) == {cpu}
        assert os.getsid(proc.pid) == proc.pid
        assert os.sched_getaffinity(0) == before
    finally:
        hostproc.kill_and_reap(proc)
    assert proc.returncode == -9


@pytest.mark.parametrize("setpriv", [True, False], ids=["setpriv", "preexec"])
def test_the_program_dies_when_xtalk_is_sigkilled(setpriv):
    code = ("import sys\nfrom xtalk.backends import hostproc\n"
            + ("" if setpriv else "hostproc.SETPRIV = None\n")
            + "p = hostproc.spawn(['sleep', '30'], None)\n"
            + "while open(f'/proc/{p.pid}/comm').read().strip() != 'sleep': pass\n"  # PDEATHSIG set, sleep exec'd
            + "print(p.pid, flush=True)\nsys.stdin.read()\n")
    parent = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                              env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src")))
    child = int(parent.stdout.readline())
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 5
    while os.path.exists(f"/proc/{child}") and time.monotonic() < deadline:
        time.sleep(0.01)
    state = open(f"/proc/{child}/stat").read().split()[2] if os.path.exists(f"/proc/{child}") else "gone"
    assert state in ("gone", "Z"), f"the child is still {state}"
