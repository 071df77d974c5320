"""Leases on what a campaign uses: each CPU it measures on or stresses, and its campaign
directory, so two xtalks never measure on one CPU or write into one campaign at once.

A lease is two locks, both dropped by the kernel when their process ends, however it ends
(SIGKILL too), and both needed:
- an advisory lock (fcntl.flock) on a file in the lock directory, named after what it
  holds (`cpu3`; `xen-root-board-22-cpu1` for a CPU of a Xen reached over ssh;
  `campaign-<hash of its path>`). The file says who holds it (PID, campaign, where its
  results go) so a refusal can name them; a file a dead xtalk left is stale and is taken.
  It is opened with O_NOFOLLOW and must be a regular file of one name: a symlink or a hard
  link planted in its place is refused, never written through (a root xtalk would
  truncate what it points to);
- a listening Unix socket bound to an abstract name made of the lock directory's and the
  lease's names: no file, so nothing can unlink it under its holder. A lease file deleted
  under a running campaign (a tmp cleaner, `rm`) leaves the lease held; the refusal then
  names the holder's PID from the socket's peer credentials.
A lease is given back, and its file removed, when its `with` block ends: the campaign's
end, an error, Ctrl-C, SIGTERM.

The lock directory: $XTALK_LOCK_DIR; else /run/lock/xtalk, or <tmp>/xtalk-locks where
/run/lock is not writable; both made sticky and writable by every user, so every user's
xtalk on this host shares them. A lock directory that is a symlink, or that is owned by
another user than root and this one, or that others may write to without the sticky bit
(where they could replace this user's lease files), is refused; where the shared one is
another user's, this user's xtalk uses its own, <tmp>/xtalk-locks-<uid> (and then does not
see that user's leases).
Caveats: xtalks that see different lock directories (another XTALK_LOCK_DIR, a root and a
user where /run/lock is root's only) do not see each other's leases; a lease is this
host's, not another controller's driving the same Xen; abstract sockets are per network
namespace: xtalks in two containers that share a lock directory but not a network
namespace rely on the files alone. Anybody can bind an abstract name: a squatter can keep
a lease busy (refused, never redirected).
A process may take again what it holds through another Leases (a search holds its CPUs
for the whole command, and each of its campaigns takes them too): the file stays locked
until the last of them gives it back.
"""
from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import re
import socket
import stat
import struct
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
_HERE: dict[Path, list] = {}  # a lease file held here -> [its locked descriptor, how many Leases hold it, PID, socket]


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
        return _checked(_made(Path(chosen), None))
    path = SYSTEM_DIR / "xtalk" if os.access(SYSTEM_DIR, os.W_OK) else Path(tempfile.gettempdir()) / "xtalk-locks"
    path = _made(path, 0o1777)  # every user's xtalk adds its files, and removes only its own
    if unsafe_dir(path):  # made by another user, who could replace its files: this user's own instead
        path = _made(Path(tempfile.gettempdir()) / f"xtalk-locks-{os.geteuid()}", 0o700)
    return _checked(path)


def _made(path: Path, mode: int | None) -> Path:
    """`path`, made a directory (with `mode`) where nothing is there."""
    if path.is_dir() or path.is_symlink():
        return path
    try:
        path.mkdir(parents=True, exist_ok=True)
        if mode is not None:
            path.chmod(mode)
    except OSError as err:
        raise UsageError(f"lock directory {path}: {err.strerror}"
                         f"{'' if mode is None else f' (set {ENV} to a directory every xtalk user can write)'}") from None
    return path


def _checked(path: Path) -> Path:
    problem = unsafe_dir(path)
    if problem:
        raise UsageError(f"lock directory {path}: {problem}: refused (set {ENV} to a directory of your own)")
    return path


def unsafe_dir(path: Path) -> str | None:
    """Why a lock directory cannot be trusted with leases, None where it can."""
    try:
        st = os.lstat(path)
    except OSError as err:
        return err.strerror or str(err)
    if stat.S_ISLNK(st.st_mode):
        return "a symbolic link"
    if not stat.S_ISDIR(st.st_mode):
        return "not a directory"
    if st.st_uid not in (0, os.geteuid()):
        return f"owned by another user (uid {st.st_uid})"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not st.st_mode & stat.S_ISVTX:
        return (f"others may write to it (mode {stat.S_IMODE(st.st_mode):o}) without the sticky bit: they could "
                "replace its lease files")
    return None


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
            fd, sock = None, _claim(path)
            if sock is not None:
                fd = _lock(path)
                if fd is None:
                    sock.close()
            if fd is None:
                busy.setdefault(_holder_of(path), []).append(what)
            else:
                got[path] = fd
                _HERE[path] = [fd, 1, self.holder.pid, sock]
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


def _address(path: Path) -> str:
    """A lease's abstract socket name: its lock directory's and its own, hashed (xtalks that
    share a lock directory share the names; a test session's own directory has its own)."""
    key = hashlib.sha256(f"{os.path.realpath(path.parent)}/{path.name}".encode()).hexdigest()[:40]
    return f"\0xtalk-lease-{key}"


def _claim(path: Path) -> socket.socket | None:
    """The lease's socket, bound and listening; None where another process has it."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(_address(path))
    except OSError as err:
        sock.close()
        if err.errno == errno.EADDRINUSE:
            return None
        raise UsageError(f"lease {path.name}: cannot bind its socket: {err.strerror}") from None
    sock.listen(1)
    return sock


def _socket_holder(path: Path) -> int | None:
    """The PID of the process that holds a lease's socket (its peer credentials)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(1.0)
        try:
            probe.connect(_address(path))
            creds = probe.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        except OSError:
            return None
    return struct.unpack("3i", creds)[0]


def _open(path: Path) -> int:
    """The lock file, made where it is not: never opened with O_CREAT where another user's
    may be (a sticky directory refuses that under fs.protected_regular); never through a
    symlink, and only a regular file."""
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK)
        except FileNotFoundError:
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
            except FileExistsError:
                continue
            os.fchmod(fd, 0o666)  # past the umask: another user's xtalk takes it once this one is done
            return fd
        except OSError as err:
            if err.errno == errno.ELOOP:
                raise UsageError(f"lock file {path} is a symbolic link: refused, not followed (it is no lease "
                                 "file of xtalk's: remove it)") from None
            if err.errno == errno.EISDIR:
                raise UsageError(f"lock file {path} is not a regular file: refused (remove it)") from None
            raise
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_nlink > 1:
            os.close(fd)
            what = f"a hard link ({st.st_nlink} names: writing the holder would change the other)" \
                if stat.S_ISREG(st.st_mode) else "not a regular file"
            raise UsageError(f"lock file {path} is {what}: refused (remove it)")
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
    """Who holds the lease: what its file says, unless its socket's holder (the kernel's
    word, SO_PEERCRED) is another process: a file anyone can rewrite is not believed then."""
    pid = _socket_holder(path)
    said = None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        with os.fdopen(fd) as f:
            said = Holder(**{k: v for k, v in json.loads(f.read(65536)).items() if k != "lease"})
    except (OSError, ValueError, TypeError):
        pass
    if said is not None and pid in (None, said.pid, os.getpid()):  # this process: leases it holds for others
        return str(said)
    if pid is None:
        return "another xtalk (it has not said which yet)"
    if not path.exists():
        return f"another xtalk (PID {pid}; its lease file {path} was removed)"
    return f"another xtalk (PID {pid})" + (f"; its lease file names {said}, which does not hold it" if said else "")


def _give_back(held: dict[Path, int]) -> None:
    for path, fd in held.items():
        _HERE[path][1] -= 1
        if _HERE[path][1]:  # another Leases of this process holds it still
            continue
        sock = _HERE.pop(path)[3]
        try:
            if os.fstat(fd).st_ino == os.lstat(path).st_ino:  # this lease's file, not another's made since
                path.unlink()  # before the lock goes: nobody else removes a file in use
        except OSError:  # gone already, or another user's file in a sticky directory: it stays, unlocked
            pass
        os.close(fd)
        sock.close()
