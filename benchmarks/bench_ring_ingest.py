"""Sample ingest from the ring: goal >= 10 M samples/s with no loss (issue 4).

Host capacity: a 1 Mi-slot ring is filled by numpy as fast as memory allows, in steps that
stay within its capacity, while xtalk's RingReader copies new slots and the RunWriter
appends them to samples.bin, as in a run. The rate is samples stored per second of
reader time. Printed for information: a live run where the native cpu_spin program
(spin=1, about 5-10 M samples/s here) writes on one CPU and the reader runs on another.
"""
from __future__ import annotations

import os
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.common import report
from xtalk.results.schema import SAMPLE_DTYPE
from xtalk.results.store import RunWriter
from xtalk.telemetry.ring import HEADER_SIZE, RingReader, create_ring_file

CAPACITY = 1 << 20
TOTAL = 50_000_000
STEP = CAPACITY // 2
ROOT = Path(__file__).resolve().parent.parent


def capacity_rate(tmp: Path) -> tuple[float, int]:
    ring = tmp / "ring"
    create_ring_file(ring, CAPACITY)
    writer_map = np.memmap(ring, dtype=np.uint8, mode="r+")
    slots = writer_map[HEADER_SIZE:].view(SAMPLE_DTYPE)
    header = writer_map[:HEADER_SIZE].view("<u8")
    reader, store = RingReader(ring), RunWriter(tmp / "run", {"run_id": "bench", "config_id": "bench", "attempt": 1})
    block = np.zeros(STEP, SAMPLE_DTYPE)
    read_time, stored, lost = 0.0, 0, 0
    for start in range(0, TOTAL, STEP):
        block["seq"] = np.arange(start, start + STEP, dtype=np.uint64)
        first = start % CAPACITY
        slots[first:first + STEP] = block
        header[3] = start + STEP  # write_seq
        t = time.perf_counter()
        batch = reader.read()
        store.samples(batch.records)
        read_time += time.perf_counter() - t
        stored += len(batch.records)
        lost += batch.lost
    store.close()
    reader.close()
    return stored / read_time, lost


def live_rate(tmp: Path) -> tuple[float, int, int]:
    ring = tmp / "live.ring"
    create_ring_file(ring, CAPACITY)
    binary = ROOT / "build" / "native" / "xtalk-bench"
    reader = RingReader(ring)
    cpus = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpus[0]})
    proc = subprocess.Popen(["taskset", "-c", str(cpus[-1]), str(binary), "bench=cpu_spin", "run=b",
                             "role=measurer", "spin=1", "iterations=10000000", f"ring={ring}"],
                            stdout=subprocess.DEVNULL)
    t, n = time.perf_counter(), 0
    while proc.poll() is None:
        n += len(reader.read().records)
    n += len(reader.read().records)
    elapsed = time.perf_counter() - t
    reader.close()
    os.sched_setaffinity(0, cpus)
    return n / elapsed, reader.lost, n


def main() -> int:
    subprocess.run(["make", "-s", "-C", str(ROOT), "native"], check=True)
    with tempfile.TemporaryDirectory(dir="/dev/shm") as tmp:
        rate, lost = capacity_rate(Path(tmp))
        ok = report("ring_ingest_capacity", rate / 1e6, 10, "M samples/s", higher_is_better=True)
        print(f"  lost samples: {lost}", flush=True)
        ok &= lost == 0
        live, live_lost, n = live_rate(Path(tmp))
        print(f"  live (native cpu_spin writer): {n} samples at {live / 1e6:.2f} M/s wall, lost {live_lost}",
              flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
