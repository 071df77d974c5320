"""Leases on what a campaign uses: each CPU it measures on or stresses, and its campaign
directory, so two xtalks never measure on one CPU or write into one campaign at once.

A lease is an advisory lock (fcntl.flock) on a file in the lock directory, named after
what it holds (`cpu3`; `xen-root-board-22-cpu1` for a CPU of a Xen reached over ssh;
`campaign-<hash of its path>`). The file says who holds it (PID, campaign, where its
results go) so a refusal can name them. The kernel drops a flock when its process ends,
however it ends (SIGKILL too): a file a dead xtalk left is stale and is simply taken. A
lease is given back, and its file removed, when its `with` block ends: the campaign's
end, an error, Ctrl-C, SIGTERM.

The lock directory: $XTALK_LOCK_DIR; else /run/lock/xtalk, or <tmp>/xtalk-locks where
/run/lock is not writable; both made sticky and writable by every user, so every user's
xtalk on this host shares them.
Caveats: xtalks that see different lock directories (another XTALK_LOCK_DIR, a root and a
user where /run/lock is root's only) do not see each other's leases; a lease is this
host's, not another controller's driving the same Xen.
A process may take again what it holds through another Leases (a search holds its CPUs
for the whole command, and each of its campaigns takes them too): the file stays locked
until the last of them gives it back.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Iterable

from ..errors import UsageError

ENV = "XTALK_LOCK_DIR"
SYSTEM_DIR = Path("/run/lock")
POLL_S = 0.5  # how often a waiting campaign tries again
_HERE: dict[Path, list[int]] = {}  # a lease file held here -> [its locked descriptor, how many Leases hold it, PID]


@dataclass(frozen=True)
class Holder:
    """Who holds a lease: its process, its campaign, and where it runs ("results in OUT")."""

    pid: int
    campaign: str
    where: str

    @classmethod
    def me(cls, campaign: str, where: str) -> "Holder":
        return cls(os.getpid(), campaign, where)

    def __str__(self) -> str:
        return f"campaign {self.campaign!r} (PID {self.pid}, {self.where})"


def lock_dir() -> Path:
    chosen = os.environ.get(ENV)
    if chosen:
        path = Path(chosen)
    else:
        path = SYSTEM_DIR / "xtalk" if os.access(SYSTEM_DIR, os.W_OK) else Path(tempfile.gettempdir()) / "xtalk-locks"
    if not path.is_dir():
        try:
            path.mkdir(parents=True, exist_ok=True)
            if not chosen:
                path.chmod(0o1777)  # every user's xtalk adds its files, and removes only its own
        except OSError as err:
            raise UsageError(f"lock directory {path}: {err.strerror}"
                             f"{'' if chosen else f' (set {ENV} to a directory every xtalk user can write)'}") from None
    return path


def cpu_leases(scope: str, cpus: Iterable[int]) -> dict[str, str]:
    """{lease name: what it is} for `cpus` of `scope`: '' this host's CPUs, else whose
    (e.g. 'xen root@board:22', the pCPUs of the Xen there)."""
    prefix = re.sub(r"[^A-Za-z0-9._]+", "-", scope) + "-" if scope else ""
    of = f" of {scope}" if scope else ""
    return {f"{prefix}cpu{cpu}": f"CPU {cpu}{of}" for cpu in sorted(set(cpus))}


def directory_lease(path: Path) -> dict[str, str]:
    """{lease name: what it is} for a campaign directory."""
    resolved = path.resolve()
    return {f"campaign-{hashlib.sha256(str(resolved).encode()).hexdigest()[:16]}": f"campaign directory {resolved}"}


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class Leases:
    """What one campaign holds, all given back when its `with` block ends. take() gets every
    lease asked for at once, or none: refused with a UsageError naming each busy lease and
    its holder, or with `wait` told once what it waits for and tried again every POLL_S."""

    def __init__(self, holder: Holder, wait: bool = False, tell: Callable[[str], None] = _stderr):
        self.holder, self.wait, self.tell = holder, wait, tell
        self.held: dict[Path, int] = {}  # a lease's file -> its locked descriptor

    def __enter__(self) -> "Leases":
        return self

    def __exit__(self, *exc) -> None:
        self.release()

    def take(self, leases: dict[str, str]) -> None:
        where = lock_dir()
        wanted = {where / f"{name}.lock": what for name, what in leases.items()}
        told = False
        while busy := self._try(wanted):
            said = "; ".join(f"{', '.join(whats)} {'is' if len(whats) == 1 else 'are'} in use by {holder}"
                             for holder, whats in busy.items())
            if not self.wait:
                raise UsageError(f"{said}: wait for it or stop it (`--wait` queues behind it)")
            if not told:
                self.tell(f"xtalk: waiting: {said}")
                told = True
            time.sleep(POLL_S)

    def _try(self, wanted: dict[Path, str]) -> dict[str, list[str]]:
        """Lock every wanted lease, or none; the busy ones by their holder."""
        got, busy = {}, {}
        for path, what in ((p, w) for p, w in wanted.items() if p not in self.held):
            if path in _HERE and _HERE[path][2] == self.holder.pid:  # held here already: shared till the last ends
                _HERE[path][1] += 1
                got[path] = _HERE[path][0]
                continue
            fd = _lock(path)
            if fd is None:
                busy.setdefault(_holder_of(path), []).append(what)
            else:
                got[path] = fd
                _HERE[path] = [fd, 1, self.holder.pid]
                record = json.dumps(dict(asdict(self.holder), lease=what)).encode()
                os.ftruncate(fd, 0)
                os.pwrite(fd, record, 0)
        if busy:
            _give_back(got)
        else:
            self.held |= got
        return busy

    def release(self) -> None:
        _give_back(self.held)
        self.held = {}


def _open(path: Path) -> int:
    """The lock file, made where it is not: never opened with O_CREAT where another user's
    may be (a sticky directory refuses that under fs.protected_regular)."""
    while True:
        try:
            return os.open(path, os.O_RDWR)
        except FileNotFoundError:
            pass
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        os.fchmod(fd, 0o666)  # past the umask: another user's xtalk takes it once this one is done
        return fd


def _lock(path: Path) -> int | None:
    """The locked file's descriptor, or None when another process holds it."""
    while True:
        try:
            fd = _open(path)
        except PermissionError as err:
            raise UsageError(f"lock file {path}: {err.strerror} (set {ENV} to a directory every xtalk user "
                             "can write)") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        try:
            mine = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            mine = False
        if mine:
            return fd
        os.close(fd)  # its holder removed it as it gave it back: lock the file there now


def _holder_of(path: Path) -> str:
    try:
        return str(Holder(**{k: v for k, v in json.loads(path.read_text()).items() if k != "lease"}))
    except (OSError, ValueError, TypeError):
        return "another xtalk (it has not said which yet)"


def _give_back(held: dict[Path, int]) -> None:
    for path, fd in held.items():
        _HERE[path][1] -= 1
        if _HERE[path][1]:  # another Leases of this process holds it still
            continue
        del _HERE[path]
        try:
            path.unlink()  # before the lock goes: nobody else removes a file in use
        except OSError:  # another user's file in a sticky directory: it stays, unlocked
            pass
        os.close(fd)
