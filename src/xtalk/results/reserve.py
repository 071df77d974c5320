"""Reserve disk space ahead of a file's appends (Linux fallocate, FALLOC_FL_KEEP_SIZE).

An append to a file on ext4 costs several times more per page while its blocks are not
reserved (delayed allocation, page by page; measured here: about 110 ns a 32-byte
sample against 20-60 reserved). samples.bin takes up to a gigabyte a second, so the
RunWriter reserves CHUNK bytes ahead of it at a time. KEEP_SIZE leaves the file's size at
what was written, so a reader, or the recovery of a run killed midway, sees exactly the
data; trim() gives the unused part back when the file is closed. On tmpfs (/dev/shm)
nothing is reserved: its fallocate allocates and zeroes the pages that the appends then
fill again (measured: it took more time than the appends), and an append allocates them
itself at no extra cost.
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
TMPFS_MAGIC = 0x01021994  # statfs f_type (linux/magic.h)


def _libc():
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def _libc_fallocate(libc):
    fallocate = getattr(libc, "fallocate", None)
    if fallocate is not None:
        fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64]
        fallocate.restype = ctypes.c_int
    return fallocate


_LIBC = _libc()
_FALLOCATE = _libc_fallocate(_LIBC)


def on_tmpfs(fd: int) -> bool:
    """Whether the file is on tmpfs (fstatfs's f_type, the first field of struct statfs: a long)."""
    fstatfs = getattr(_LIBC, "fstatfs", None)
    buf = ctypes.create_string_buffer(256)  # struct statfs: 120 bytes on 64-bit Linux
    if fstatfs is None or fstatfs(fd, buf) != 0:
        return False
    return ctypes.c_long.from_buffer(buf).value == TMPFS_MAGIC


class Reserve:
    """Keeps CHUNK bytes reserved ahead of the appends to one file (its descriptor)."""

    def __init__(self, fd: int):
        self.fd = fd
        self.size = self.reserved = os.fstat(fd).st_size
        self.active = _FALLOCATE is not None and not on_tmpfs(fd)

    def append(self, n: int) -> None:
        """Call before appending n bytes: reserves the next CHUNK when they would not fit."""
        if self.active and self.size + n > self.reserved:
            end = self.size + n + CHUNK
            if _FALLOCATE(self.fd, FALLOC_FL_KEEP_SIZE, self.reserved, end - self.reserved) == 0:
                self.reserved = end
            else:
                self.active = False
        self.size += n

    def cut(self, size: int) -> None:
        """Truncate the file to `size` bytes (what was reserved past it goes too)."""
        os.ftruncate(self.fd, size)
        self.size = self.reserved = size

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
