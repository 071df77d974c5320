"""A small file system of the test's own (a tmpfs, mounted as root) and a way to fill it to
the last byte: the full-disk and read-only cases of test_cli_errors and test_import.
Skipped, saying why, where a tmpfs cannot be mounted (not root, no mount namespace)."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest


@pytest.fixture
def mount(tmp_path):
    """mount(options) -> a tmpfs mounted on a new directory, unmounted after the test."""
    mounted = []

    def make(options: str) -> Path:
        point = tmp_path / f"mnt{len(mounted)}"
        point.mkdir()
        res = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(point)], capture_output=True)
        if res.returncode:
            pytest.skip(f"cannot mount a tmpfs here: {res.stderr.decode().strip()}")
        mounted.append(point)
        return point

    yield make
    for point in reversed(mounted):
        subprocess.run(["umount", str(point)], check=True)


def fill(disk: Path, leave: int = 0) -> Path:
    """Fill a file system with disk/filler, to the last byte but `leave` bytes."""
    with open(disk / "filler", "wb", buffering=0) as f:  # unbuffered: nothing left to flush at close
        try:
            while f.write(b"\0" * 65536):
                pass
        except OSError:
            pass
    if leave:
        size = (disk / "filler").stat().st_size
        with open(disk / "filler", "r+b") as f:
            f.truncate(max(0, size - leave))
    return disk / "filler"
