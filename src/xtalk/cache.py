"""Values kept from one xtalk command to the next: the cache directory (XTALK_CACHE, else
$XDG_CACHE_HOME/xtalk, else ~/.cache/xtalk), where images and labs are built too, and small
facts that cost a subprocess at each command's start (the TSC's frequency, QEMU's
--version), each kept under a key that changes whenever the fact may have (a program's
file, the kernel's boot_id).
Caveats: a cache that cannot be read or written only costs the fact's computation; each
file holds the last KEEP keys, so a stale key does not stay for ever; two commands writing
one file at once lose one of their facts, never the file (files.py).
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .files import write_atomic

KEEP = 32


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
        kept = json.loads((cache_dir() / name).read_text())
    except (OSError, ValueError):
        return {}
    return kept if isinstance(kept, dict) else {}


def recall(name: str, key: str) -> Any:
    """The value kept under `key` in the cache file `name`; None when there is none."""
    return _read(name).get(key)


def remember(name: str, key: str, value: Any) -> None:
    """Keep `value` under `key` in the cache file `name` (with the file's last KEEP keys)."""
    kept = {k: v for k, v in _read(name).items() if k != key}
    kept = dict(list(kept.items())[-(KEEP - 1):], **{key: value})
    try:
        cache_dir().mkdir(parents=True, exist_ok=True)
        write_atomic(cache_dir() / name, json.dumps(kept, indent=1), durable=False)
    except OSError:
        pass
