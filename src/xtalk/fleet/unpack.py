"""A run a board sent back: its tar stream (cli/worker_cmd.py writes it) unpacked into a
directory, checked while it streams.

Every member goes through tarfile's `data` filter (nothing outside the directory, no
absolute or escaping link, no device or FIFO) and counts towards the size limit (the
fleet's max_run_mib) before a byte of it is written: a member that would take the run
over it is refused from its header, and the stream itself is cut off once more than the
limit was read (long tar headers count too). What is wrong is raised as RunRefused,
worded to follow "board NAME sent a run ..."; a stream that ends inside a member (the
worker or its connection gone) as RunCut; an empty stream (the worker sent nothing) is
no error. Errors of this machine's disk (full, read-only, I/O) are raised as they are:
they are not the board's.
Caveat: what was unpacked before a refusal or a cut stays in `dest`: the caller removes it.
"""
from __future__ import annotations

import errno
import tarfile
from pathlib import Path
from typing import BinaryIO

MIB = 1 << 20
OURS = {errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EROFS}  # this machine's disk, not the board's run
FILTER_WORDS = {
    tarfile.OutsideDestinationError: "with a member outside its directory: {name}",
    tarfile.AbsoluteLinkError: "with an absolute link: {name} -> {link}",
    tarfile.LinkOutsideDestinationError: "with a link to outside its directory: {name} -> {link}",
    tarfile.SpecialFileError: "with a special file (a device or a FIFO): {name}",
    tarfile.AbsolutePathError: "with an absolute path: {name}",
}


def shown(name: str) -> str:
    """A name the board chose, as it can be printed (control characters escaped)."""
    return name if name.isprintable() else repr(name)[1:-1]


class RunRefused(Exception):
    """What is wrong with the run, e.g. 'with a member outside its directory: ../x'."""


class RunCut(Exception):
    """The stream ended inside the run."""


class _Capped:
    """The stream, read no further than max_mib MiB (and the read that went over)."""

    def __init__(self, stream: BinaryIO, max_mib: int):
        self.stream, self.max_mib, self.read_bytes = stream, max_mib, 0

    def read(self, size: int = -1) -> bytes:
        data = self.stream.read(size)
        self.read_bytes += len(data)
        if self.read_bytes > self.max_mib * MIB:
            raise RunRefused(f"over the size limit (max_run_mib = {self.max_mib}, {self.max_mib * MIB:,} bytes): "
                             f"{self.read_bytes:,} bytes of its tar stream read, and more came")
        return data


def unpack_run(stream: BinaryIO, dest: Path, max_mib: int) -> None:
    """Unpack the tar `stream` into the directory `dest` (it exists), checking as above."""
    total = 0

    def admit(member: tarfile.TarInfo, path: str) -> tarfile.TarInfo:
        nonlocal total
        try:
            member = tarfile.data_filter(member, path)
        except tarfile.FilterError as err:
            words = FILTER_WORDS.get(type(err), "with a member tarfile's data filter refuses: {name} ({err})")
            raise RunRefused(words.format(name=shown(err.tarinfo.name), link=shown(err.tarinfo.linkname),
                                          err=err)) from None
        total += member.size
        if total > max_mib * MIB:
            raise RunRefused(f"over the size limit (max_run_mib = {max_mib}, {max_mib * MIB:,} bytes): its member "
                             f"{shown(member.name)} ({member.size:,} bytes) takes it to {total:,} bytes")
        return member

    try:
        with tarfile.open(fileobj=_Capped(stream, max_mib), mode="r|") as tar:
            tar.errorlevel = 2  # a member that cannot be made is an error, not a debug message
            tar.extractall(dest, filter=admit)
    except tarfile.ReadError as err:
        if "empty file" in str(err):
            return
        if "unexpected end of data" in str(err):
            raise RunCut(str(err)) from None
        raise RunRefused(f"that is not a tar stream ({err})") from None
    except KeyError as err:  # tarfile's: a hard link to a member the stream did not have
        raise RunRefused(f"with a hard link to a member it does not have ({err.args[0]})") from None
    except tarfile.TarError as err:
        raise RunRefused(f"that cannot be unpacked ({type(err).__name__}: {err})") from None
    except OSError as err:
        if err.errno in OURS:
            raise
        raise RunRefused(f"that cannot be unpacked ({type(err).__name__}: {err})") from None
