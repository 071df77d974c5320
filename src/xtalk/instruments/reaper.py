"""A process tree that ends with its owner: a capture program runs under this file as a
small supervisor (`python -S reaper.py COMMAND...`, the standard library only) that is a
child subreaper (PR_SET_CHILD_SUBREAPER): every descendant the program leaves, a
background child of a shell, one started with setsid, one whose parent exited, is
re-parented to it, not to init. When the program ends (by itself, or on the stop signal
xtalk sends to its process group), the supervisor kills what is left of the tree
(SIGKILL: a child that ignores INT and TERM too), reaps it, and exits with the program's
status (re-raising a signal that ended it). KILL_ALL (SIGUSR2) ends the whole tree at once:
xtalk sends it when the program does not end in time, and the kernel sends it when xtalk
dies (PR_SET_PDEATHSIG), so a SIGKILLed xtalk leaves nothing of the capture running.

`start` and `end` are xtalk's side (instruments/program.py).
Caveats: Linux only (prctl); a descendant that is not re-parented (it is still a child of
a live descendant) is found by walking /proc's parent links, so one forking faster than
the walk can need several rounds (ROUNDS); PR_SET_PDEATHSIG fires when the thread that
started the supervisor ends, as setpriv's did.
"""
from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys

PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER = 1, 36
KILL_ALL = signal.SIGUSR2
STOPS = (signal.SIGINT, signal.SIGTERM, signal.SIGUSR1)  # the stop signals a program may be sent
ROUNDS = 50


def descendants(root: int) -> list[int]:
    """Every process under `root`, from /proc's parent links."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                ppid = int(f.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [root]
    while todo:
        for pid in children.get(todo.pop(), []):
            out.append(pid)
            todo.append(pid)
    return out


def kill_tree() -> None:
    """SIGKILL every descendant of this supervisor, until none is left alive to fork."""
    for _ in range(ROUNDS):
        alive = [p for p in descendants(os.getpid()) if not _zombie(p)]
        if not alive:
            return
        for pid in alive:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] == b"Z"
    except OSError:
        return True


def main(command: list[str]) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    libc.prctl(PR_SET_PDEATHSIG, int(KILL_ALL), 0, 0, 0)
    for stop in STOPS:  # the group's stop signal is the program's to act on: this one waits for it
        signal.signal(stop, lambda *_: None)
    signal.signal(KILL_ALL, lambda *_: kill_tree())
    if os.getppid() == 1:  # xtalk died before the death signal was set
        sys.exit(1)
    program = os.fork()
    if program == 0:
        for stop in (*STOPS, KILL_ALL):
            signal.signal(stop, signal.SIG_DFL)
        try:
            os.execvp(command[0], command)
        except OSError as err:
            os.write(2, f"{command[0]}: {err.strerror}\n".encode())
        os._exit(127)
    status = None
    while True:
        try:
            pid, code = os.waitpid(-1, 0)
        except ChildProcessError:
            break
        if pid == program:
            status = code
            kill_tree()  # what the program left behind
    if status is not None and os.WIFSIGNALED(status):  # ended by a signal: so does this supervisor
        if os.WTERMSIG(status) not in (signal.SIGKILL, signal.SIGSTOP):
            signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        os.kill(os.getpid(), os.WTERMSIG(status))
    sys.exit(os.WEXITSTATUS(status) if status is not None else 1)


def start(command: list[str], stdout, stderr) -> subprocess.Popen:
    """`command` under a supervisor, in a process group (and session) of its own."""
    return subprocess.Popen([sys.executable, "-S", __file__, *command], stdin=subprocess.DEVNULL, stdout=stdout,
                            stderr=stderr, start_new_session=True)


def end(process: subprocess.Popen, stop: int, timeout_s: float) -> int:
    """End a tree `start` began: `stop` to its group, KILL_ALL after `timeout_s`, SIGKILL to the
    group as the last resort; the program's status (negative: the signal that ended it)."""
    if process.poll() is None:
        for sig, target, wait_s in ((stop, -process.pid, timeout_s), (KILL_ALL, process.pid, 5.0),
                                    (signal.SIGKILL, -process.pid, None)):
            try:
                os.kill(target, sig) if target > 0 else os.killpg(-target, sig)
                process.wait(wait_s)
                break
            except subprocess.TimeoutExpired:
                continue
            except ProcessLookupError:
                process.wait()
                break
    return process.wait()


if __name__ == "__main__":
    main(sys.argv[1:])
