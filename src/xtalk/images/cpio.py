"""Write a Linux initramfs: a cpio archive in the "newc" format, byte-for-byte
reproducible (sorted entries, mtime 0, uid/gid 0, fixed inode numbers), optionally
gzip-compressed (mtime 0 in the gzip header too).

Entries are (path, kind, payload, mode): kind "dir", "file" (payload: bytes), "link"
(payload: target) or "chr" (payload: (major, minor)).
"""
from __future__ import annotations

import gzip
import io
from pathlib import Path

KINDS = {"dir": 0o040000, "file": 0o100000, "link": 0o120000, "chr": 0o020000}


def _pad(n: int) -> bytes:
    return b"\0" * (-n % 4)


def _header(ino: int, mode: int, size: int, namesize: int, rdev: tuple[int, int] = (0, 0)) -> bytes:
    fields = (ino, mode, 0, 0, 1, 0, size, 0, 0, rdev[0], rdev[1], namesize, 0)
    return b"070701" + b"".join(f"{v:08X}".encode() for v in fields)


def archive(entries: list[tuple[str, str, object, int]]) -> bytes:
    out = io.BytesIO()
    for ino, (path, kind, payload, mode) in enumerate(sorted(entries, key=lambda e: e[0]), start=1):
        name = path.lstrip("/").encode() + b"\0"
        rdev = (0, 0)
        if kind == "file":
            data = bytes(payload)
        elif kind == "link":
            data = str(payload).encode()
        elif kind == "chr":
            data, rdev = b"", tuple(payload)
        else:
            data = b""
        head = _header(ino, KINDS[kind] | mode, len(data), len(name), rdev)
        out.write(head + name + _pad(len(head) + len(name)) + data + _pad(len(data)))
    trailer = b"TRAILER!!!\0"
    head = _header(0, 0, 0, len(trailer))
    out.write(head + trailer + _pad(len(head) + len(trailer)))
    return out.getvalue()


def write(path: Path, entries: list[tuple[str, str, object, int]], compress: str = "gzip") -> None:
    data = archive(entries)
    if compress == "gzip":
        data = gzip.compress(data, compresslevel=6, mtime=0)
    elif compress != "none":
        raise ValueError(f"unknown initramfs compression {compress!r} (gzip, none)")
    tmp = Path(str(path) + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)
