"""Files: writing them atomically, and reading one a user names.

Atomic file writes: everything xtalk writes whole (meta.json, campaign.json, reports,
compare pages, samples.parquet) goes to a temporary file in the same directory, is
flushed to disk and renamed onto its name. A full disk or a kill midway leaves the
previous file (or none), never a truncated one that looks complete. `durable=False` skips
the flush for a record replaced again soon (a running run's meta.json: its later, final
version is flushed): still whole after a kill of xtalk (the page cache outlives it), it is
only a power cut that may leave the previous version or an empty file.
A set of files written together (a report directory) goes to a temporary directory
`.NAME.<token>.partial` next to it, put in place of the previous one at the end (two
renames with SIGINT and SIGTERM held back between them). Only a SIGKILL or a power cut
midway leaves a `.tmp` file, a `.partial` or a `.old` directory behind (named so, never
the set); the next write of the same NAME removes those whose writer is gone. The token
names the writer (a hash of the host's name, its PID, then a random part), so one still
writing, here or on another host sharing the directory, is left alone. Caveat: a PID
reused since holds its writer's leftovers until that process ends too.

Reading a file a user names (a spec, a console log): at most a limit of bytes, so a
device such as /dev/zero is refused rather than read forever, and every failure is one
UsageError line naming the file (no traceback). Reading a file of the store or a kept
fact (open_regular): only a regular file, so that a FIFO or a device planted in its place
is refused before a byte is read instead of hanging the command. Changing a file in place
(open_own: a search journal healed, a lease file): only a file of its own, never through a
symbolic or hard link.
"""
from __future__ import annotations

import os
import re
import secrets
import shutil
import socket
import stat
import zlib
import contextlib
import errno
from collections.abc import Iterator
from typing import BinaryIO
from contextlib import contextmanager
from pathlib import Path

from .errors import InfrastructureError, UsageError
from .signals import alive, blocked_interrupts


HOST_TAG = f"{zlib.crc32(socket.gethostname().encode()):08x}"
LEFTOVER = re.compile(r"(?P<host>[0-9a-f]{8})-(?P<pid>\d+)-[0-9a-f]{8}\.(?:tmp|partial|old)")


def _token(path: Path) -> str:
    """A writer's token for a temporary name next to `path`, once the leftovers of dead
    writers of the same name are removed."""
    prefix = f".{path.name}."
    try:
        entries = [e for e in os.scandir(path.parent) if e.name.startswith(prefix)]
    except OSError:  # no directory yet: the write says why
        entries = []
    for entry in entries:
        m = LEFTOVER.fullmatch(entry.name[len(prefix):])
        if m and m["host"] == HOST_TAG and not alive(int(m["pid"])):
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
    return f"{HOST_TAG}-{os.getpid()}-{secrets.token_hex(4)}"


@contextmanager
def atomic_path(path: Path, durable: bool = True) -> Iterator[Path]:
    """A new temporary path next to `path` for the block to write; renamed onto `path`
    when the block ends (flushed to disk first where `durable`), removed when it raises.
    Write errors name `path`."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{_token(path)}.tmp")
    try:
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        yield tmp
        if durable:
            fd = os.open(tmp, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        os.replace(tmp, path)
    except OSError as err:
        tmp.unlink(missing_ok=True)
        raise InfrastructureError(f"cannot write {path}: {err.strerror or err}") from err
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_atomic(path: Path, data: str | bytes, durable: bool = True) -> None:
    with atomic_path(path, durable) as tmp, open(tmp, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)


@contextmanager
def atomic_dir(path: Path) -> Iterator[Path]:
    """A new temporary directory next to `path` for the block to fill; put in place of
    `path` (the previous directory removed) when the block ends, removed when it raises,
    the previous `path` then untouched."""
    path = Path(path)
    token = _token(path)
    tmp, old = path.with_name(f".{path.name}.{token}.partial"), path.with_name(f".{path.name}.{token}.old")
    try:
        tmp.mkdir(parents=True)
        yield tmp
        with blocked_interrupts():
            if path.exists():
                path.rename(old)
            tmp.rename(path)
        shutil.rmtree(old, ignore_errors=True)
    except OSError as err:
        shutil.rmtree(tmp, ignore_errors=True)
        if old.exists() and not path.exists():
            old.rename(path)
        raise InfrastructureError(f"cannot write {path}: {err.strerror or err}") from err
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


class NotRegular(OSError):
    """A FIFO, a device, a socket or a directory where a file is read whole: its strerror
    says which (`kind`)."""

    def __init__(self, path: str | Path, kind: str):
        super().__init__(errno.EINVAL, f"{kind}, not a regular file", str(path))
        self.kind = kind


def _kind(mode: int) -> str:
    return "a FIFO" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else \
        "a directory" if stat.S_ISDIR(mode) else "a socket" if stat.S_ISSOCK(mode) else "no regular file"


def open_regular(path: str | Path) -> BinaryIO:
    """`path` open for reading, or NotRegular before a byte is read when it is no regular file
    (through a symlink too): a FIFO no writer closes would hang the read, /dev/zero never
    ends. Every file of the store, and every kept fact, is read through it."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise NotRegular(path, _kind(mode))
    return os.fdopen(fd, "rb")


def open_own(path: str | Path, flags: int = os.O_RDWR) -> int:
    """A descriptor of `path` for changing it in place (`flags`: O_RDWR, O_APPEND, O_CREAT...),
    or NotRegular before a byte is touched when it is no file of its own: a symbolic link
    (never followed: a write through it would change the file it points to, anywhere), a hard
    link (another name of the same file), another user's file, or no regular file."""
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
    except OSError as err:
        if err.errno in (errno.ELOOP, errno.EISDIR):
            raise NotRegular(path, "a symbolic link" if err.errno == errno.ELOOP else "a directory") from None
        raise
    st = os.fstat(fd)
    kind = (_kind(st.st_mode) if not stat.S_ISREG(st.st_mode) else f"a hard link ({st.st_nlink} names)"
            if st.st_nlink > 1 else f"another user's file (uid {st.st_uid})" if st.st_uid != os.geteuid() else None)
    if kind:
        os.close(fd)
        raise NotRegular(path, kind)
    return fd


def read_regular(path: str | Path) -> bytes:
    """The bytes of the regular file `path` (open_regular)."""
    with open_regular(path) as f:
        return f.read()


def read_bounded(path: str | Path, limit: int, noun: str, regular_only: bool = False) -> bytes:
    """The bytes of `path` (at most `limit`); `noun` says what it should be ("a console log").
    `regular_only`: a FIFO, a device or a socket (through a symlink too) is refused before a
    byte is read: one that never ends (a FIFO no writer closes, /dev/zero) would hang or fill
    memory up to `limit`; a regular file over `limit` is refused by its size, unread."""
    size = f"{limit >> 30} GiB" if limit >= 1 << 30 else f"{limit >> 20} MiB"
    try:
        with open_regular(path) if regular_only else open(path, "rb") as f:
            st = os.fstat(f.fileno())
            if stat.S_ISREG(st.st_mode) and st.st_size > limit:
                raise UsageError(f"{path}: larger than {size}: not {noun}")
            data = f.read(limit + 1)
    except NotRegular as err:
        raise UsageError(f"{path}: {err.kind}, not {noun} (a file is read whole, and this one may never end)") from None
    except OSError as err:
        why = f"a directory, not {noun}" if isinstance(err, IsADirectoryError) else err.strerror or str(err)
        raise UsageError(f"{path}: {why}") from None
    if len(data) > limit:
        raise UsageError(f"{path}: larger than {size}: not {noun}")
    return data
