"""fleet/unpack.py: a run's tar stream from a board, refused when it is bad or too big,
checked while it streams."""
from __future__ import annotations

import io
import tarfile

import pytest

from tests.framework.crafted_tar import CASES, CHUNK, HUGE, huge_header, member, stream
from xtalk.fleet.unpack import MIB, RunCut, RunRefused, unpack_run

RUN = stream(member("meta.json", b"{}"), member("console/guest.log", b"booted\n"), member("samples.bin", b"s" * 5000))


class Zeros(io.RawIOBase):
    """`head`, then zeros without end, counting what was read."""

    def __init__(self, head: bytes):
        self.head, self.read_bytes = head, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buf) -> int:
        n = len(buf)
        chunk = (self.head[self.read_bytes:] + bytes(n))[:n]
        buf[:n] = chunk
        self.read_bytes += n
        return n


def unpack(data: bytes, dest, max_mib: int = 1) -> None:
    unpack_run(io.BytesIO(data), dest, max_mib)


def test_a_whole_run_is_unpacked(tmp_path):
    unpack(RUN, tmp_path)
    assert (tmp_path / "console" / "guest.log").read_bytes() == b"booted\n"
    assert (tmp_path / "samples.bin").stat().st_size == 5000


def test_an_empty_stream_is_no_error(tmp_path):
    unpack(b"", tmp_path)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("case, said", [
    ("outside", "with a member outside its directory: ../x"),
    ("absolute_link", "with an absolute link: passwd -> /etc/passwd"),
    ("device", "with a special file (a device or a FIFO): null"),
])
def test_a_member_the_data_filter_refuses_is_named(tmp_path, case, said):
    dest = tmp_path / "run"
    dest.mkdir()
    with pytest.raises(RunRefused) as err:
        unpack(CASES[case](), dest)
    assert str(err.value) == said
    assert not (tmp_path / "x").exists() and not (dest / "passwd").exists() and not (dest / "null").exists()


def test_a_name_is_told_without_its_control_characters(tmp_path):
    with pytest.raises(RunRefused, match=r"^with a member outside its directory: \.\./\\x1b\[2Jx$"):
        unpack(stream(member("../\x1b[2Jx", b"out")), tmp_path)


def test_a_hard_link_to_nothing_is_refused(tmp_path):
    with pytest.raises(RunRefused, match="with a hard link to a member it does not have"):
        unpack(stream(member("h", kind=tarfile.LNKTYPE, link="missing")), tmp_path)


def test_a_cut_stream_is_told_apart_from_garbage(tmp_path):
    cut, garbage = tmp_path / "cut", tmp_path / "garbage"
    for dest in (cut, garbage):
        dest.mkdir()
    with pytest.raises(RunCut, match="unexpected end of data"):
        unpack(RUN[:len(RUN) // 2], cut)
    with pytest.raises(RunRefused, match=r"^that is not a tar stream \(bad checksum\)$"):
        unpack(b"Welcome to the board!\n" + RUN, garbage)  # what a chatty login shell prints first


def test_a_member_over_the_limit_is_refused_from_its_header(tmp_path):
    source = Zeros(huge_header())
    with pytest.raises(RunRefused) as err:
        unpack_run(io.BufferedReader(source, CHUNK), tmp_path, 1)
    assert str(err.value) == (f"over the size limit (max_run_mib = 1, {MIB:,} bytes): its member samples.bin "
                              f"({HUGE:,} bytes) takes it to {HUGE:,} bytes")
    assert source.read_bytes <= 2 * CHUNK and list(tmp_path.iterdir()) == []  # read no further, wrote nothing


def test_members_are_counted_together(tmp_path):
    half = b"h" * (MIB // 2 + 1)
    with pytest.raises(RunRefused, match=r"its member b \(524,289 bytes\) takes it to 1,048,578 bytes"):
        unpack(stream(member("a", half), member("b", half)), tmp_path)
    assert (tmp_path / "a").stat().st_size == len(half) and not (tmp_path / "b").exists()


def test_the_stream_itself_is_cut_off_at_the_limit(tmp_path):
    """A pax header is read whole into memory by tarfile: one without end stops at the limit."""
    header = tarfile.TarInfo("././@PaxHeader")
    header.type, header.size = tarfile.XHDTYPE, HUGE
    source = Zeros(header.tobuf(tarfile.USTAR_FORMAT))
    with pytest.raises(RunRefused, match=r"1,048,576 bytes\): .* bytes of its tar stream read, and more came"):
        unpack_run(io.BufferedReader(source, CHUNK), tmp_path, 1)
    assert source.read_bytes <= 2 * MIB + 2 * CHUNK
