"""Reading a file a user names (a spec, a console log): at most a limit of bytes, so a
device such as /dev/zero is refused rather than read forever, and every failure is one
UsageError line naming the file (no traceback)."""
from __future__ import annotations

from pathlib import Path

from .errors import UsageError


def read_bounded(path: str | Path, limit: int, noun: str) -> bytes:
    """The bytes of `path` (at most `limit`); `noun` says what it should be ("a console log")."""
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as err:
        why = f"a directory, not {noun}" if isinstance(err, IsADirectoryError) else err.strerror or str(err)
        raise UsageError(f"{path}: {why}") from None
    if len(data) > limit:
        size = f"{limit >> 30} GiB" if limit >= 1 << 30 else f"{limit >> 20} MiB"
        raise UsageError(f"{path}: larger than {size}: not {noun}")
    return data
