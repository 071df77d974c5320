"""Atomic writes: the old file or the whole new one, never a part, and no leftovers."""
import errno
import os

import pytest

from xtalk.files import atomic_path, write_atomic
from xtalk.errors import InfrastructureError


def test_write_replaces_the_file_whole_with_the_usual_permissions(tmp_path):
    target = tmp_path / "report.html"
    write_atomic(target, "old")
    write_atomic(target, b"new")
    assert target.read_text() == "new" and os.listdir(tmp_path) == ["report.html"]
    assert target.stat().st_mode & 0o777 == 0o666 & ~_umask()


def test_a_failed_write_keeps_the_old_file_and_names_the_target(tmp_path):
    target = tmp_path / "meta.json"
    write_atomic(target, "old")
    with pytest.raises(InfrastructureError, match=f"cannot write {target}: No space left on device"):
        with atomic_path(target) as tmp:
            tmp.write_text("half")
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    with pytest.raises(ValueError):
        with atomic_path(target) as tmp:
            raise ValueError("a bug in the writer")
    assert target.read_text() == "old" and os.listdir(tmp_path) == ["meta.json"]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
