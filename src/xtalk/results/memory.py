"""Give the memory a pass over samples freed back to the system, so that the next step of a
command starts from what its data and libraries take, not from the pass's peak.

A pass over a run's samples (the analysis's scan, the report's copy of them) allocates and
frees buffers of megabytes, batch after batch: NumPy's through the C library's malloc,
Arrow's through its pool (the C allocator too, cli/main.py, or mimalloc / jemalloc where
ARROW_DEFAULT_MEMORY_POOL names them). Freed, they stay resident in the allocator (glibc
raises its mmap threshold to the largest block freed, so later blocks of that size come
from its heaps, whose free pages it keeps): 20-40 MB after a pass of 2^18-row batches,
added to the peak of every step after it. `release()` hands them back (malloc_trim, the
Arrow pool's release_unused); a few milliseconds.
Caveat: glibc only; elsewhere (musl) malloc_trim is missing and only Arrow's pool releases.
"""
from __future__ import annotations

import ctypes
import sys


def release() -> None:
    """Return the C allocator's and Arrow's free memory to the system (Arrow only if it is
    imported: this does not import it)."""
    if arrow := sys.modules.get("pyarrow"):
        arrow.default_memory_pool().release_unused()
    trim = getattr(ctypes.CDLL(None), "malloc_trim", None)
    if trim is not None:
        trim(0)
