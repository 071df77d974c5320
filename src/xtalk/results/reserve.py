"""Reserve disk space ahead of a file's appends (Linux fallocate, FALLOC_FL_KEEP_SIZE).

An append to a file on ext4 costs several times more per page while its blocks are not
reserved (delayed allocation, page by page; measured here: about 110 ns a 32-byte
sample against 20-60 reserved). samples.bin takes up to a gigabyte a second, so the
RunWriter reserves CHUNK bytes ahead of it at a time. KEEP_SIZE leaves the file's size at
what was written, so a reader, or the recovery of a run killed midway, sees exactly the
data; trim() gives the unused part back when the file is closed.
Caveats: where fallocate is missing (not Linux, a file system without it) or fails,
reserving stops and appends go on as before; a process killed before trim() leaves up to
CHUNK bytes reserved past the end of the file until trim_file() (the run's finalisation:
its recovery as interrupted by --resume) or a deletion frees them.
"""
from __future__ import annotations

import ctypes
import os

FALLOC_FL_KEEP_SIZE = 1
CHUNK = 64 << 20


def _libc_fallocate():
    try:
        fallocate = ctypes.CDLL(None, use_errno=True).fallocate
    except (OSError, AttributeError):
        return None
    fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64]
    fallocate.restype = ctypes.c_int
    return fallocate


_FALLOCATE = _libc_fallocate()


class Reserve:
    """Keeps CHUNK bytes reserved ahead of the appends to one file (its descriptor)."""

    def __init__(self, fd: int):
        self.fd = fd
        self.size = self.reserved = os.fstat(fd).st_size
        self.active = _FALLOCATE is not None

    def append(self, n: int) -> None:
        """Call before appending n bytes: reserves the next CHUNK when they would not fit."""
        if self.active and self.size + n > self.reserved:
            end = self.size + n + CHUNK
            if _FALLOCATE(self.fd, FALLOC_FL_KEEP_SIZE, self.reserved, end - self.reserved) == 0:
                self.reserved = end
            else:
                self.active = False
        self.size += n

    def trim(self) -> None:
        """Free what was reserved past the end of the file (ftruncate to its own size)."""
        if self.reserved > self.size:
            os.ftruncate(self.fd, os.fstat(self.fd).st_size)
            self.reserved = self.size


def trim_file(path) -> None:
    """Free the blocks a killed writer left reserved past the end of `path` (truncated to
    its own size: the data stays); one that cannot be opened so (a symlink, no write
    permission) keeps them: freeing them is a saving, never a condition."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW)
    except OSError:
        return
    try:
        os.ftruncate(fd, os.fstat(fd).st_size)
    finally:
        os.close(fd)
