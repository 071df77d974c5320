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


def _dead_pid():
    """A PID no process has: a child's, once reaped."""
    import subprocess
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_leftovers_of_a_killed_writer_go_with_the_next_write_of_the_name(tmp_path):
    """A SIGKILL during `--report` left `.report.<token>.partial` (the adversarial probe);
    the next write of the same name removes it, a `.tmp` and an `.old` of the same dead
    writer too, and leaves those of a live writer, another host's and other names alone."""
    from xtalk.files import HOST_TAG, atomic_dir
    dead, live = _dead_pid(), os.getpid()
    gone = [f".report.{HOST_TAG}-{dead}-0badc0de.partial", f".report.{HOST_TAG}-{dead}-0badc0df.old"]
    kept = [f".report.{HOST_TAG}-{live}-0badc0de.partial", f".report.0000beef-{dead}-0badc0de.partial",
            f".other.{HOST_TAG}-{dead}-0badc0de.partial"]
    for name in gone + kept:
        (tmp_path / name).mkdir()
        (tmp_path / name / "index.html").write_text("half")
    (tmp_path / f".report.{HOST_TAG}-{dead}-0badc0de.tmp").write_text("half")
    with atomic_dir(tmp_path / "report") as tmp:
        (tmp / "index.html").write_text("whole")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(kept + ["report"])
    write_atomic(tmp_path / "other", "x")  # a file's write sweeps its own name's leftovers
    assert not (tmp_path / kept[2]).exists()


def test_the_sweep_does_not_follow_a_symlinked_leftover(tmp_path):
    from xtalk.files import HOST_TAG
    target = tmp_path / "keep"
    target.mkdir()
    (target / "precious").write_text("x")
    link = tmp_path / f".f.{HOST_TAG}-{_dead_pid()}-0badc0de.partial"
    link.symlink_to(target)
    write_atomic(tmp_path / "f", "y")
    assert (target / "precious").read_text() == "x"
    assert not link.is_symlink()  # the link went, not what it points to
