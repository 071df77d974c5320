"""Find and build the workload images and programs the backends run.

Images are built from this source tree by its Makefile (make decides what is stale),
so a user never names a path. XTALK_ROOT overrides where the tree is. make runs once per
target in a process: a campaign's runs all use what it found or built at its start
(~0.1 s a call saved where several backends or programs share a target). The host's own
programs (HOST_TARGETS: the catalogue, the native and POSIX programs) are made in one call
when any of them is asked for, ~0.1 s less than a call each; a failure there is told for
the target that was asked for only. A command that will load a spec starts that call at
its first line (make_ahead), so that it runs beside the imports and the spec's validation
(~50 ms less before a campaign's first run); build() waits for it before any make of its
own, and settle() ends it with the command: make and what it runs, in a process group of
their own (make removes a half-built target when stopped). Caveat: a SIGKILLed xtalk leaves
that make to finish its build.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import signal
import subprocess
from pathlib import Path

from ..errors import InfrastructureError


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
_ahead: subprocess.Popen | None = None  # make_ahead's call, until build() or settle() takes its end


def _make_host_targets(root: Path) -> list[str]:
    return ["make", "-s", "-k", "-C", str(root), *HOST_TARGETS]


def make_ahead() -> None:
    """Start making the host's own programs in the background; nothing where there is no
    source tree or no make (build() then says so for the target it is asked for)."""
    global _ahead
    try:
        _ahead = subprocess.Popen(_make_host_targets(source_root()), stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, start_new_session=True)
    except (InfrastructureError, OSError):
        _ahead = None


def _ahead_status() -> int | None:
    """make_ahead's exit status once it has ended, None when there was none."""
    global _ahead
    ahead, _ahead = _ahead, None
    return None if ahead is None else ahead.wait()


def settle() -> None:
    """The command is ending: make_ahead's call ends with it (stopped if still making)."""
    if _ahead is not None and _ahead.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(_ahead.pid, signal.SIGTERM)
    _ahead_status()


def build(target: str, output: str) -> Path:
    """Run `make TARGET` in the source tree (once per process) and return the built file's path."""
    root = source_root()
    path = root / output
    if _ahead_status() == 0:  # waited for: never two makes in the tree at once
        _made.update(HOST_TARGETS)
    if target in _made and path.is_file():
        return path
    if target in HOST_TARGETS and not _made.intersection(HOST_TARGETS):
        together = subprocess.run(_make_host_targets(root), capture_output=True)
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
