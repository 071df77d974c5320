"""Find and build the workload images and programs the backends run.

Images are built from this source tree by its Makefile (make decides what is stale),
so a user never names a path. XTALK_ROOT overrides where the tree is. make runs once per
target in a process: a campaign's runs all use what it found or built at its start
(~0.1 s a call saved where several backends or programs share a target). The host's own
programs (HOST_TARGETS: the catalogue, the native and POSIX programs) are made in one call
when any of them is asked for, ~0.1 s less than a call each; a failure there is told for
the target that was asked for only.
"""
from __future__ import annotations

import functools
import hashlib
import os
import subprocess
from pathlib import Path

from .errors import InfrastructureError


@functools.cache
def source_root() -> Path:
    env = os.environ.get("XTALK_ROOT")
    if env:
        return Path(env)
    for parent in Path(__file__).resolve().parents:
        if (parent / "guests").is_dir() and (parent / "Makefile").is_file():
            return parent
    raise InfrastructureError("cannot find the xtalk source tree (set XTALK_ROOT)")


_made: set[str] = set()  # the targets make built (or found up to date) in this process
HOST_TARGETS = ("catalogue", "native", "posix")


def build(target: str, output: str) -> Path:
    """Run `make TARGET` in the source tree (once per process) and return the built file's path."""
    root = source_root()
    path = root / output
    if target in _made and path.is_file():
        return path
    if target in HOST_TARGETS and not _made.intersection(HOST_TARGETS):
        together = subprocess.run(["make", "-s", "-k", "-C", str(root), *HOST_TARGETS], capture_output=True)
        if together.returncode == 0 and path.is_file():
            _made.update(HOST_TARGETS)
            return path
    proc = subprocess.run(["make", "-s", "-C", str(root), target], capture_output=True, text=True)
    if proc.returncode != 0 or not path.is_file():
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
        raise InfrastructureError(f"building {output} with 'make {target}' failed:\n{tail}")
    _made.add(target)
    return path


def file_hash(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()
