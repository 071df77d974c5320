"""The channel study on a host whose last-level cache is larger than a probe guest can
hold twice over: a measured hierarchy of this host (OUT/platform, as `xtalk host caches`
keeps it) with a 2 GiB LLC. The membw default (memcpy over llc*2: two buffers of 4 GiB)
failed every run "out of memory for the memcpy buffers" before; now it is sized down to
what a probe guest allocates, runs, and the table and evidence.json say from what, after the machine line."""
from __future__ import annotations

import json
import socket

import pytest

from tests.framework.backends import NEEDS_QEMU
from tests.framework.cli import write_spec, xtalk
from xtalk.results.platform import write_caches

GIB = 1 << 30
SPEC = 'name = "big"\ncpus = [0, 1]\n[backend]\nkind = "qemu"\n[measurer]\nbench = "qsort"\nparams = { size_kib = 256 }\n'


@NEEDS_QEMU
@pytest.mark.slow
@pytest.mark.full
def test_a_default_larger_than_a_guest_holds_is_sized_down_runs_and_says_so(tmp_path):
    out = tmp_path / "out"
    levels = [(1, 32 << 10, 1.0), (2, 1 << 20, 4.0), (3, 2 * GIB, 12.0)]
    write_caches(out, socket.gethostname(), "qemu", backend="qemu", cpu_model="a large-LLC host", kernel="-",
                 cpus=[0, 1], levels=[{"level": lv, "size_bytes": size, "latency_ns": ns,
                                       "shared_with_neighbour": lv == 3} for lv, size, ns in levels],
                 memory_ns=100.0, reported={"l1": 32 << 10, "l2": 1 << 20, "l3": 2 * GIB, "llc": 2 * GIB},
                 curve={"bytes": [], "ns": []}, campaigns=[])
    res = xtalk("channels", write_spec(tmp_path, SPEC), "--out", out, "--channel", "membw", "--runs", "2",
                "--placement", "other-core", "--duration-s", "1", timeout=600)
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("machine: "), res.stdout  # whether the machine could answer, first
    assert "memcpy(size=1 GiB) (sized" in res.stdout, res.stdout  # the table wraps the rest
    evidence = json.loads(next(out.glob("*-channels-*/report/evidence.json")).read_text())
    row = next(c for c in evidence["channels"] if c["channel"] == "membw")
    assert row["tested"] and row["stressor"]["params"]["size"] == GIB, row
    assert row["sized"].startswith("sized down: size=llc*2 = 4 GiB to 1 GiB"), row
    assert row["pressure"]["rate"] > 0 and row["pressure"]["of_alone"] is not None, row  # it ran alone too
