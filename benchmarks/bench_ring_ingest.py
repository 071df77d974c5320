"""Sample ingest from the ring: goals >= 50 M samples/s capacity and >= 30 M/s live, no loss (issues 27, 46).

Capacity: a 1 Mi-slot ring is filled by numpy as fast as memory allows, in steps that
stay within its capacity, while xtalk's RingReader moves new slots into the RunWriter's
samples.bin (RingReader.move_to), as in a run. The rate is samples stored per second of
reader time, with samples.bin on /dev/shm (the goal) and, for information, on the disk
build/ is on (where campaigns usually are). Live: the native probe's ring_flood bench
(a real writer, in bursts of 64, paced at LIVE_PACE samples/s) writes on one CPU while
the reader and the RunWriter (samples.bin on /dev/shm) run on another; the rate is
samples stored per second from the first to the last sample the reader got, and no
sample may be lost. Printed with it: the consumer's own CPU time per sample while it
moved samples, and the share of its CPU it got (what a busy host took away); and each
file system's rate for samples.bin (results/write_rate.py), the bound it sets on a run
whose results are there (`xtalk run` warns before a run that plans more).
Each part has a temporary directory of its own, removed before the next part starts.
Caveats: on a loaded 2-core host the reader can be preempted for longer than the live
ring holds (LIVE_CAPACITY / LIVE_PACE, about 0.1 s), which shows as lost samples, and the
writer falls behind its pace (printed). On a VM whose host takes back free guest memory
(free page reporting), a page first used since costs several times more, so the parts
would slow each other down if their files were kept.
"""
from __future__ import annotations

import os
import re
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks.common import report
from xtalk.results.schema import SAMPLE_DTYPE
from xtalk.results import write_rate
from xtalk.results.store import RunWriter
from xtalk.results.write_rate import sample_write_rate
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


@dataclass
class Live:
    rate: float  # samples stored per second, first to last sample the reader got
    lost: int
    stored: int
    written: float  # the writer's own samples per second
    cpu_per_sample: float  # the consumer's CPU seconds per sample, while moving samples
    cpu_share: float  # its CPU time over its wall time while moving samples


def live_rate(tmp: Path) -> Live:
    """ring_flood writing on another CPU while the reader moves its samples to samples.bin."""
    ring = tmp / "live.ring"
    create_ring_file(ring, LIVE_CAPACITY)
    reader, store = RingReader(ring), run_writer(tmp / "live")
    cpus = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpus[0]})
    proc = subprocess.Popen(["taskset", "-c", str(cpus[-1]), str(ROOT / "build" / "native" / "xtalk-bench"),
                             "bench=ring_flood", "run=b", "role=measurer", "burst=64", f"rate={LIVE_PACE}",
                             f"iterations={LIVE_SAMPLES}", f"ring={ring}"], stdout=subprocess.PIPE, text=True)
    first = last = cpu = wall = 0.0
    while True:
        running = proc.poll() is None
        cpu_before, before = time.thread_time(), time.perf_counter()
        batch = reader.move_to(store)
        if batch.stored:
            cpu += time.thread_time() - cpu_before
            last = time.perf_counter()
            first, wall = first or before, wall + last - before
        if not running and not batch.more:
            break
    store.close()
    reader.close()
    os.sched_setaffinity(0, cpus)
    stored = store.sample_count
    return Live(stored / (last - first) if last > first else 0.0, reader.lost, stored,
                writer_rate(proc.communicate()[0]), cpu / max(stored, 1), cpu / wall if wall else 0.0)


def file_system_bound(directory: Path) -> str:
    rate = sample_write_rate(directory)
    return f"samples.bin's file system there takes {rate / 1e6:.1f} M samples/s (a {write_rate.PROBE_BYTES >> 20} MiB " \
           f"append): a run storing its results there keeps up with at most that"


def main() -> int:
    subprocess.run(["make", "-s", "-C", str(ROOT), "native"], check=True)
    with tempfile.TemporaryDirectory(dir="/dev/shm") as tmp:
        rate, lost = capacity_rate(Path(tmp), Path(tmp) / "run")
    ok = report("ring_ingest_capacity", rate / 1e6, 50, "M samples/s", higher_is_better=True)
    print(f"  lost samples: {lost}", flush=True)
    with tempfile.TemporaryDirectory(dir="/dev/shm") as tmp, tempfile.TemporaryDirectory(dir=ROOT / "build") as disk:
        on_disk, disk_lost = capacity_rate(Path(tmp), Path(disk) / "run", DISK_TOTAL)
        print(f"  samples.bin on {ROOT / 'build'}'s file system instead: {on_disk / 1e6:.1f} M samples/s, "
              f"lost {disk_lost}; {file_system_bound(Path(disk))}", flush=True)
    with tempfile.TemporaryDirectory(dir="/dev/shm") as tmp:
        live = live_rate(Path(tmp))
        bound = file_system_bound(Path(tmp))
    ok &= report("ring_ingest_live", live.rate / 1e6, LIVE_GOAL / 1e6, "M samples/s", higher_is_better=True)
    print(f"  live: ring_flood paced at {LIVE_PACE / 1e6:g} M/s (it wrote at {live.written / 1e6:.1f} M/s: less is a "
          f"busy host), {live.stored} samples stored, lost {live.lost}", flush=True)
    print(f"  the consumer: {live.cpu_per_sample * 1e9:.1f} ns of CPU a sample while moving them (it would keep up "
          f"with {1e-6 / max(live.cpu_per_sample, 1e-12):.0f} M samples/s on a CPU of its own), "
          f"and it got {live.cpu_share:.0%} of its CPU (the rest: other work on this host); on /dev/shm {bound}",
          flush=True)
    ok &= lost == 0 and live.lost == 0
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
