"""How many samples a second a file system takes as samples.bin, measured there.

A timed append of PROBE_BYTES, in writes of one ring read each (WRITE_BYTES) with
the RunWriter's own append (reserve.py's reservation ahead included), to a temporary
file in the directory, removed after. Measured once per file system (st_dev) and
process: `xtalk run` asks before a campaign whose measurer plans a high sample rate
(running/ingest_check.py); the benchmark prints it (benchmarks/bench_ring_ingest.py).
Caveats: a short append mostly lands in the page cache: a long run that fills the
kernel's dirty limit goes at the disk's own rate, lower; a busy host measures less; an
xtalk killed while it measures leaves its `.xtalk-write-rate-*` file behind.
"""
from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import numpy as np

from .reserve import Reserve, on_tmpfs
from .schema import SAMPLE_DTYPE
from .store import append_all

PROBE_BYTES = 32 << 20
WRITE_BYTES = 8 << 20  # what one move from a ring appends at most (telemetry/ring.py MAX_BATCH)
_measured: dict[int, float] = {}  # st_dev -> samples per second


def existing(directory: Path) -> Path:
    """The directory, or its nearest parent that exists (a results directory not made yet)."""
    directory = directory.absolute()
    while not directory.is_dir() and directory != directory.parent:
        directory = directory.parent
    return directory


def in_memory(directory: Path) -> bool:
    """Whether the directory (or where it will be) is on tmpfs: no faster file system to move to."""
    try:
        fd = os.open(existing(directory), os.O_RDONLY)
    except OSError:
        return False
    try:
        return on_tmpfs(fd)
    finally:
        os.close(fd)


def sample_write_rate(directory: Path) -> float | None:
    """Samples (SAMPLE_DTYPE) per second that appends to a file in `directory` take; None
    where no file can be written there (the campaign's own start says why)."""
    where = existing(directory)
    device = os.stat(where).st_dev
    if device not in _measured:
        try:
            _measured[device] = _measure(where)
        except OSError:
            return None
    return _measured[device]


def _measure(where: Path) -> float:
    batch = np.zeros(min(WRITE_BYTES, PROBE_BYTES) // SAMPLE_DTYPE.itemsize, SAMPLE_DTYPE).view(np.uint64)
    fd, name = tempfile.mkstemp(prefix=".xtalk-write-rate-", dir=where)  # at its end, as appends are
    try:
        reserve, written = Reserve(fd), 0
        start = time.perf_counter()
        while written < PROBE_BYTES:
            written += append_all(fd, reserve, [batch])
        seconds = time.perf_counter() - start
    finally:
        os.close(fd)
        os.unlink(name)
    return written / SAMPLE_DTYPE.itemsize / max(seconds, 1e-9)
