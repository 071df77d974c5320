"""Values kept from one xtalk command to the next: the cache directory (XTALK_CACHE, else
$XDG_CACHE_HOME/xtalk, else ~/.cache/xtalk), where images and labs are built too, and small
facts that cost a subprocess at each command's start (the TSC's frequency, QEMU's
--version), each kept under a key that changes whenever the fact may have (a program's
file, the kernel's boot_id).
Caveats: a cache that cannot be read or written only costs the fact's computation; each
file holds the last KEEP keys, so a stale key does not stay for ever; two commands writing
one file at once lose one of their facts, never the file (files.py). A cache file is read
only as a regular file of at most MAX_BYTES, never through a symlink (/dev/zero behind one
is no fact); something else in its place (a directory, a symlink, a FIFO) is replaced when
the fact is kept. What a kept fact is worth is its reader's to check (backends/tsc.py).
"""
from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path
from typing import Any

from .errors import InfrastructureError
from .files import write_atomic

KEEP = 32
MAX_BYTES = 1 << 20  # a cache file holds KEEP small facts: far less than this


def cache_dir() -> Path:
    env = os.environ.get("XTALK_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "xtalk"


def program_key(path: str | os.PathLike) -> str | None:
    """A key that changes when the program at `path` is rebuilt or replaced (its resolved
    path, mtime and size); None when it cannot be read."""
    try:
        resolved = Path(path).resolve()
        built = resolved.stat()
    except OSError:
        return None
    return f"{resolved} {built.st_mtime_ns} {built.st_size}"


def _read(name: str) -> dict[str, Any]:
    try:
        fd = os.open(cache_dir() / name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return {}
            data = f.read(MAX_BYTES + 1)
        kept = json.loads(data) if len(data) <= MAX_BYTES else None
    except (OSError, ValueError):
        return {}
    return kept if isinstance(kept, dict) else {}


def _clear(path: Path) -> None:
    """Whatever is at `path` that is not a regular file: gone, so a file can take its place."""
    if path.is_symlink() or (path.exists() and not path.is_file()):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


def recall(name: str, key: str) -> Any:
    """The value kept under `key` in the cache file `name`; None when there is none."""
    return _read(name).get(key)


def remember(name: str, key: str, value: Any) -> None:
    """Keep `value` under `key` in the cache file `name` (with the file's last KEEP keys)."""
    kept = {k: v for k, v in _read(name).items() if k != key}
    kept = dict(list(kept.items())[-(KEEP - 1):], **{key: value})
    try:
        cache_dir().mkdir(parents=True, exist_ok=True)
        _clear(cache_dir() / name)
        write_atomic(cache_dir() / name, json.dumps(kept, indent=1), durable=False)
    except (OSError, InfrastructureError):  # no cache here: the fact is computed again next time
        pass
