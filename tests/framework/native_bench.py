"""Helpers for the tests of build/native/xtalk-bench (the shared bench code as host
processes): the build fixture, running a bench, parsing XT lines, and a ring file made
and read per docs/protocol.md section 3 with struct (independent of xtalk's reader)."""

import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from tests.framework.repo import ROOT
BIN = ROOT / "build" / "native" / "xtalk-bench"
HDR = struct.Struct("<8sIIQQQQQQ")
SLOT = struct.Struct("<QQQII")
FIELD = re.compile(r'(\w+)=("[^"]*"|\S+)')


@pytest.fixture(scope="session")
def bench():
    if shutil.which("gcc") is None or shutil.which("make") is None:
        pytest.skip("gcc/make not installed")
    if (ROOT / "Makefile").exists():
        cmd = ["make", "-C", str(ROOT), "native"]
    else:
        cmd = ["make", "-C", str(ROOT), "-f", "mk/native.mk", "native"]
    subprocess.run(cmd, check=True, capture_output=True, timeout=300)
    assert BIN.exists()
    return BIN


def parse(out):
    """Console text -> list of (record type, fields dict) for XT lines."""
    recs = []
    for line in out.splitlines():
        if not line.startswith("XT "):
            continue
        kind = line.split()[1]
        fields = {k: v.strip('"') for k, v in FIELD.findall(line)}
        recs.append((kind, fields))
    return recs


def only(recs, kind):
    return [f for k, f in recs if k == kind]


def run(bin_, *args, timeout=30):
    p = subprocess.run([str(bin_), *args], capture_output=True, text=True, timeout=timeout)
    return p.returncode, parse(p.stdout), p.stdout


def make_ring(path, capacity, magic=b"XTRING01"):
    with open(path, "wb") as f:
        f.write(HDR.pack(magic, 1, 32, capacity, 0, 0, 0, 0, 0))
        f.write(b"\0" * (capacity * SLOT.size))
    return path


def read_ring(path):
    data = Path(path).read_bytes()
    magic, ver, slot, cap, wseq, hb, freq, _, _ = HDR.unpack_from(data, 0)
    slots = [SLOT.unpack_from(data, 64 + i * 32) for i in range(cap)]
    return dict(magic=magic, capacity=cap, write_seq=wseq, heartbeat=hb, freq_hz=freq), slots


def ring_samples(path):
    """Slots [write_seq - capacity, write_seq) in seq order, checked for continuity."""
    hdr, slots = read_ring(path)
    first = max(0, hdr["write_seq"] - hdr["capacity"])
    out = []
    for seq in range(first, hdr["write_seq"]):
        s = slots[seq % hdr["capacity"]]
        assert s[0] == seq, f"slot for seq {seq} holds seq {s[0]}"
        out.append(dict(seq=s[0], t=s[1], value=s[2], metric=s[3], flags=s[4]))
    return hdr, out


def check_begin_end(recs, bench_name, role="measurer", status="pass"):
    assert recs[0][0] == "BEGIN", recs[:2]
    b = recs[0][1]
    assert b["bench"] == bench_name and b["role"] == role
    assert b["platform"] == "native" and b["arch"] in ("x86_64", "arm64")
    assert int(b["freq_hz"]) > 1_000_000
    assert int(only(recs, "META")[0]["overhead_cycles"]) > 0
    assert recs[-1][0] == "END" and recs[-1][1]["status"] == status, recs[-1]
    return b, recs[-1][1]
