"""Tar streams a board should never send, for the checks of fleet/unpack.py, and a fake
`xtalk worker` that sends one: `python -m tests.framework.crafted_tar CASE [worker]` reads
the job line from stdin like the real worker, writes CASE's stream on stdout and exits 0.
A fleet kind whose worker_command is this makes a board that sends it (test_fleet.py).

Cases: outside (a member ../x after a meta.json), absolute_link, device, huge (a member
declaring HUGE bytes, its zeros written until the reader hangs up).
"""
from __future__ import annotations

import io
import sys
import tarfile

HUGE = 1 << 30
CHUNK = 1 << 20


def member(name: str, data: bytes = b"", kind: bytes = tarfile.REGTYPE, link: str = "") -> tuple:
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.size = kind, link, len(data)
    return info, data


def stream(*members: tuple) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w|") as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return out.getvalue()


CASES = {
    "outside": lambda: stream(member("meta.json", b"{}"), member("../x", b"out")),
    "absolute_link": lambda: stream(member("meta.json", b"{}"), member("passwd", kind=tarfile.SYMTYPE,
                                                                       link="/etc/passwd")),
    "device": lambda: stream(member("meta.json", b"{}"), member("null", kind=tarfile.CHRTYPE)),
}


def huge_header() -> bytes:
    """The header of a regular member `samples.bin` of HUGE bytes (its data to follow)."""
    info = tarfile.TarInfo("samples.bin")
    info.size = HUGE
    return info.tobuf(tarfile.PAX_FORMAT)


def main(case: str) -> int:
    sys.stdin.readline()  # the job
    out = sys.stdout.buffer
    if case == "huge":
        out.write(huge_header())
        for _ in range(HUGE // CHUNK):
            out.write(bytes(CHUNK))  # a reader that hangs up ends this with SIGPIPE
        return 0
    out.write(CASES[case]())
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
