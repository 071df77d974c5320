"""Host processes the backends start (workload programs, QEMU): spawned in their own
session (Ctrl-C reaches only xtalk, which then stops them), with PR_SET_PDEATHSIG=SIGKILL
(they die with xtalk even on SIGKILL) and a CPU affinity set before exec; scheduling
class applied per thread with the result recorded; killed and reaped as a group; their
CPU time (schedstat, ns) and state read per thread for the stressor watch.

Started without fork(): a Python function run in the child (preexec_fn) makes subprocess
copy xtalk's whole address space, 10-30 ms a start here (page tables are slow to copy
under a virtualised KVM), where vfork takes about 1 ms. So the child inherits the CPU
affinity of the thread that starts it (set for the start, then put back) and util-linux's
setpriv, exec'd first, sets PDEATHSIG and execs the program (same process, same pid).
Without setpriv the old way is taken.
"""
from __future__ import annotations

import ctypes
import os
import shutil
import signal
import subprocess
import time
from typing import IO, Iterable

from .base import Vitals

POLICIES = {"rr": os.SCHED_RR, "fifo": os.SCHED_FIFO, "other": os.SCHED_OTHER}
PR_SET_PDEATHSIG = 1


def _child_setup(cpus: tuple[int, ...] | None):
    libc = ctypes.CDLL(None, use_errno=True)

    def setup() -> None:
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if cpus:
            os.sched_setaffinity(0, cpus)

    return setup


SETPRIV = shutil.which("setpriv")


def spawn(argv: list[str], cpus: tuple[int, ...] | None, stdout: int | IO = subprocess.PIPE,
          stderr: int | IO = subprocess.STDOUT, stopped: bool = False, pass_fds: tuple[int, ...] = ()
          ) -> subprocess.Popen:
    options = dict(stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr, pass_fds=pass_fds, start_new_session=True)
    if SETPRIV is None:
        proc = subprocess.Popen(argv, preexec_fn=_child_setup(cpus), **options)
    else:
        mine = os.sched_getaffinity(0)
        if cpus:
            os.sched_setaffinity(0, cpus)
        try:
            proc = subprocess.Popen([SETPRIV, "--pdeathsig", "KILL", "--", *argv], **options)
        finally:
            os.sched_setaffinity(0, mine)
    if stopped:  # held until SIGCONT; it may have run for well under a millisecond
        signal_group(proc.pid, signal.SIGSTOP)
    if proc.stdout is not None:
        os.set_blocking(proc.stdout.fileno(), False)
    return proc


def apply_policy(tid: int, sched: str, priority: int) -> dict:
    """Set a thread's scheduling class; returns what was obtained (and why not)."""
    prio = priority if sched != "other" else 0
    try:
        os.sched_setscheduler(tid, POLICIES[sched], os.sched_param(prio))
        return {"sched": sched, "priority": prio}
    except PermissionError:
        return {"sched": "other", "priority": 0, "sched_refused": f"{sched} not permitted for this user"}
    except ProcessLookupError:
        return {"sched": "unknown", "priority": 0}


def affinity(tid: int) -> list[int] | None:
    try:
        return sorted(os.sched_getaffinity(tid))
    except ProcessLookupError:
        return None


def signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        pass


def kill_and_reap(proc: subprocess.Popen) -> None:
    """SIGKILL the whole group (even when the leader is gone) and reap the leader."""
    signal_group(proc.pid, signal.SIGKILL)
    proc.wait()


def task_vitals(pid: int, tids: Iterable[int] | None = None) -> Vitals | None:
    """CPU time and state of a process's threads (or of the given ones: a VM's vCPU
    threads); None when it is gone. Stopped when any thread is (SIGSTOP stops them all),
    running when any is runnable, else sleeping."""
    taken = time.monotonic_ns()
    try:
        tids = list(tids) if tids is not None else [int(t) for t in os.listdir(f"/proc/{pid}/task")]
    except OSError:
        return None
    cpu_ns, states = 0, set()
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                ns = int(f.read().split()[0])
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                states.add(f.read().rsplit(")", 1)[1].split()[0])
        except (OSError, ValueError, IndexError):  # a thread that just ended
            continue
        cpu_ns += ns
    if not states - {"Z", "X"}:
        return None
    state = "stopped" if states & {"T", "t"} else "running" if "R" in states else "sleeping"
    return Vitals(taken, cpu_ns / 1e9, state)
