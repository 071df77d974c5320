"""Sample ingest from the ring: goals >= 50 M samples/s capacity and >= 30 M/s live, no loss (issue 27).

Capacity: a 1 Mi-slot ring is filled by numpy as fast as memory allows, in steps that
stay within its capacity, while xtalk's RingReader copies new slots and the RunWriter
appends them to samples.bin, as in a run. The rate is samples stored per second of
reader time, with samples.bin on /dev/shm (the goal) and, for information, on the disk
build/ is on (where campaigns usually are). Live: the native probe's ring_flood bench
(a real writer, in bursts of 64, paced at LIVE_PACE samples/s) writes on one CPU while
the reader and the RunWriter (samples.bin on /dev/shm) run on another; the rate is
samples stored per second from the first to the last sample the reader got, and no
sample may be lost. Caveat: on a loaded 2-core host the reader can be preempted for
longer than the live ring holds (LIVE_CAPACITY / LIVE_PACE, about 0.1 s), which shows
as lost samples, and the writer falls behind its pace (printed).
"""
from __future__ import annotations

import os
import re
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
DISK_TOTAL = 10_000_000  # 320 MB through the page cache of a disk
LIVE_CAPACITY = 1 << 22
LIVE_GOAL = 30e6
LIVE_PACE = 36_000_000  # the writer's pace: above the goal, so that the reader is what is measured
LIVE_SAMPLES = 60_000_000
ROOT = Path(__file__).resolve().parent.parent


def run_writer(path: Path) -> RunWriter:
    return RunWriter(path, {"run_id": "bench", "config_id": "bench", "attempt": 1})


def capacity_rate(tmp: Path, run_dir: Path, total: int = TOTAL) -> tuple[float, int]:
    ring = tmp / "ring"
    create_ring_file(ring, CAPACITY)
    writer_map = np.memmap(ring, dtype=np.uint8, mode="r+")
    slots = writer_map[HEADER_SIZE:].view(SAMPLE_DTYPE)
    header = writer_map[:HEADER_SIZE].view("<u8")
    reader, store = RingReader(ring), run_writer(run_dir)
    block = np.zeros(STEP, SAMPLE_DTYPE)
    read_time, stored, lost = 0.0, 0, 0
    for start in range(0, total, STEP):
        block["seq"] = np.arange(start, start + STEP, dtype=np.uint64)
        first = start % CAPACITY
        slots[first:first + STEP] = block
        header[3] = start + STEP  # write_seq
        t = time.perf_counter()
        more = True
        while more:  # as the runner does: one move takes at most MAX_BATCH slots
            batch = reader.move_to(store)
            stored += batch.stored
            lost += batch.lost
            more = batch.more
        read_time += time.perf_counter() - t
    store.close()
    reader.close()
    return stored / read_time, lost


def writer_rate(console: str) -> float:
    """ring_flood's own samples per second: LIVE_SAMPLES over its window (XT BEGIN's freq_hz)."""
    freq = re.search(r" freq_hz=(\d+)", console)
    window = re.search(r" window_ticks_0=(\d+)", console)
    return LIVE_SAMPLES * int(freq[1]) / int(window[1]) if freq and window else 0.0


def live_rate(tmp: Path) -> tuple[float, int, int, float]:
    """(samples stored per second, lost, stored, the writer's rate) with ring_flood writing on
    another CPU."""
    ring = tmp / "live.ring"
    create_ring_file(ring, LIVE_CAPACITY)
    reader, store = RingReader(ring), run_writer(tmp / "live")
    cpus = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpus[0]})
    proc = subprocess.Popen(["taskset", "-c", str(cpus[-1]), str(ROOT / "build" / "native" / "xtalk-bench"),
                             "bench=ring_flood", "run=b", "role=measurer", "burst=64", f"rate={LIVE_PACE}",
                             f"iterations={LIVE_SAMPLES}", f"ring={ring}"], stdout=subprocess.PIPE, text=True)
    first = last = 0.0
    while True:
        running = proc.poll() is None
        batch = reader.move_to(store)
        if batch.stored:
            last = time.perf_counter()
            first = first or last
        if not running and not batch.more:
            break
    store.close()
    reader.close()
    os.sched_setaffinity(0, cpus)
    stored = store.sample_count
    return (stored / (last - first) if last > first else 0.0, reader.lost, stored,
            writer_rate(proc.communicate()[0]))


def main() -> int:
    subprocess.run(["make", "-s", "-C", str(ROOT), "native"], check=True)
    with tempfile.TemporaryDirectory(dir="/dev/shm") as tmp:
        rate, lost = capacity_rate(Path(tmp), Path(tmp) / "run")
        ok = report("ring_ingest_capacity", rate / 1e6, 50, "M samples/s", higher_is_better=True)
        print(f"  lost samples: {lost}", flush=True)
        with tempfile.TemporaryDirectory(dir=ROOT / "build") as disk:
            on_disk, disk_lost = capacity_rate(Path(tmp), Path(disk) / "run", DISK_TOTAL)
        print(f"  samples.bin on {ROOT / 'build'}'s file system instead: {on_disk / 1e6:.1f} M samples/s, "
              f"lost {disk_lost}", flush=True)
        live, live_lost, n, written = live_rate(Path(tmp))
        ok &= report("ring_ingest_live", live / 1e6, LIVE_GOAL / 1e6, "M samples/s", higher_is_better=True)
        print(f"  live: ring_flood paced at {LIVE_PACE / 1e6:g} M/s (it wrote at {written / 1e6:.1f} M/s: less is a "
              f"busy host), {n} samples stored, lost {live_lost}", flush=True)
        ok &= lost == 0 and live_lost == 0
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
