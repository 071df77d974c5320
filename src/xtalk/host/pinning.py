"""xtalk keeps off the CPU it measures: for the length of a campaign its own threads (the
console and ring readers, the progress display) are pinned to the spec's
housekeeping_cpus, or else to the CPUs it may use minus the measurer's. What it spawns
without CPUs of its own inherits that (QEMU's emulator threads when there are no
housekeeping_cpus). The previous affinity is restored afterwards.
Caveat: on a host whose only allowed CPU is the measurer's nothing changes (stated in
the run metadata); backends whose guests run elsewhere (xen over ssh) are not pinned.
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

_allowed: set[int] | None = None  # xtalk's affinity before it pinned itself


def allowed_cpus() -> set[int]:
    """The CPUs xtalk may give its workloads: its affinity as it was started."""
    return set(_allowed) if _allowed is not None else os.sched_getaffinity(0)


def _threads() -> list[int]:
    return [int(t.name) for t in Path("/proc/self/task").iterdir()]


def _pin(cpus: set[int]) -> None:
    for tid in _threads():
        try:
            os.sched_setaffinity(tid, cpus)
        except (ProcessLookupError, PermissionError):  # a thread that just ended / not ours to move
            pass


@contextmanager
def off_measured_cpu(measured: int, housekeeping: list[int], local: bool) -> Iterator[list[int]]:
    """Yields the CPUs xtalk runs on during the campaign."""
    before = os.sched_getaffinity(0)
    target = (set(housekeeping) & before) or (before - {measured})
    if not local or not target or target == before:
        yield sorted(before)
        return
    global _allowed
    _pin(target)
    _allowed = before
    try:
        yield sorted(target)
    finally:
        _pin(before)
        _allowed = None
