"""Find and build the workload images and programs the backends run.

Images are built from this source tree by its Makefile (make decides what is stale),
so a user never names a path. XTALK_ROOT overrides where the tree is. make runs once per
target in a process: a campaign's runs all use what it found or built at its start
(~0.1 s a call saved where several backends or programs share a target). The host's own
programs (HOST_TARGETS: the catalogue, the native and POSIX programs) are made in one call
when any of them is asked for, ~0.1 s less than a call each; a failure there is told for
the target that was asked for only. A command that will load a spec starts that call at
its first line (make_ahead), so that it runs beside the imports and the spec's validation
(~50 ms less before a campaign's first run); `xtalk run` starts its backends' targets
likewise once its spec is planned, beside the campaign's imports (~40 ms: a make call that
finds everything up to date). One make at a time: build() and a later make_ahead wait for
the one started ahead, and settle() ends it with the command: make and what it runs, in a
process group of their own (make removes a half-built target when stopped). Caveat: a
SIGKILLed xtalk leaves that make to finish its build.
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
_ahead: tuple[subprocess.Popen, tuple[str, ...]] | None = None  # make_ahead's call and its targets


def _make(root: Path, targets: tuple[str, ...]) -> list[str]:
    return ["make", "-s", "-k", "-C", str(root), *targets]


def make_ahead(targets: tuple[str, ...] = HOST_TARGETS) -> None:
    """Start making `targets` (the host's own programs by default) in the background, after
    the one started ahead before; nothing for targets made already, or where there is no
    source tree or no make (build() then says so for the target it is asked for)."""
    global _ahead
    _ahead_done()
    targets = tuple(t for t in targets if t not in _made)
    if not targets:
        return
    try:
        _ahead = subprocess.Popen(_make(source_root(), targets), stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, start_new_session=True), targets
    except (InfrastructureError, OSError):
        _ahead = None


def _ahead_done() -> None:
    """Wait for the make started ahead, if any: its targets are made when it succeeded."""
    global _ahead
    if _ahead is not None:
        (proc, targets), _ahead = _ahead, None
        if proc.wait() == 0:
            _made.update(targets)


def settle() -> None:
    """The command is ending: make_ahead's call ends with it (stopped if still making)."""
    if _ahead is not None and _ahead[0].poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(_ahead[0].pid, signal.SIGTERM)
    _ahead_done()


def build(target: str, output: str) -> Path:
    """Run `make TARGET` in the source tree (once per process) and return the built file's path."""
    root = source_root()
    path = root / output
    _ahead_done()  # never two makes in the tree at once
    if target in _made and path.is_file():
        return path
    if target in HOST_TARGETS and not _made.intersection(HOST_TARGETS):
        together = subprocess.run(_make(root, HOST_TARGETS), capture_output=True)
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
