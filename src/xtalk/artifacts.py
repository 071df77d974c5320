"""Find and build the workload images and programs the backends run.

Images are built from this source tree by its Makefile (make decides what is stale),
so a user never names a path. XTALK_ROOT overrides where the tree is.
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


def build(target: str, output: str) -> Path:
    """Run `make TARGET` in the source tree and return the built file's path."""
    root = source_root()
    proc = subprocess.run(["make", "-s", "-C", str(root), target], capture_output=True, text=True)
    path = root / output
    if proc.returncode != 0 or not path.is_file():
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
        raise InfrastructureError(f"building {output} with 'make {target}' failed:\n{tail}")
    return path


def file_hash(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()
