"""The sample path of a run with a real writer: the native probe's ring_flood bench writes
into a ring file while xtalk's RingReader copies new slots and the RunWriter appends them
to samples.bin (what benchmarks/bench_ring_ingest.py times); a run whose writer leaves
more than one read's worth (MAX_BATCH) between two polls keeps them all; and ring_flood's
own bursts and pacing (burst=, rate=). The ring is large enough that no sample can be overwritten,
so the checks do not depend on how fast this host is.
"""
import subprocess

import numpy as np

from tests.framework.cli import run_meta, write_spec, xtalk
from tests.framework.native_bench import bench, check_begin_end, make_ring, only, ring_samples, run  # noqa: F401 (fixture)
from xtalk.results.schema import SAMPLE_DTYPE
from xtalk.results.store import RunWriter
from xtalk.backends.native import RING_CAPACITY
from xtalk.telemetry.ring import MAX_BATCH, RingReader

SAMPLES = 200_000


def test_samples_reach_samples_bin_whole_and_in_order_while_the_writer_runs(bench, tmp_path):
    ring = make_ring(tmp_path / "ring", 1 << 18)
    reader = RingReader(ring)
    store = RunWriter(tmp_path / "run", {"run_id": "r", "config_id": "c", "attempt": 1})
    proc = subprocess.Popen([str(bench), "bench=ring_flood", "run=r", "burst=64", f"iterations={SAMPLES}",
                             f"ring={ring}"], stdout=subprocess.PIPE, text=True)
    reads = 0
    while True:
        running = proc.poll() is None
        batch = reader.read()
        assert batch.lost == 0
        store.samples(batch.records)
        reads += len(batch.records) > 0
        if not running and not batch.more:
            break
    out = proc.communicate()[0]
    store.close()
    reader.close()
    assert proc.returncode == 0, out
    stored = np.fromfile(tmp_path / "run" / "samples.bin", SAMPLE_DTYPE)
    assert store.sample_count == len(stored) == SAMPLES and reader.lost == 0
    assert (stored["seq"] == np.arange(SAMPLES)).all()
    assert (stored["value"] > 0).all() and (np.diff(stored["t"].astype(np.int64)) >= 0).all()
    assert reads >= 1


def test_a_run_keeps_every_sample_when_more_than_one_read_waits(bench, tmp_path):
    n = 3 * MAX_BATCH  # written in milliseconds, between two of the runner's polls; the ring holds them all
    assert n < RING_CAPACITY
    spec = write_spec(tmp_path, f"""
name = "flood"
cpus = [0, 1]
[run]
duration_s = 5
[measurer]
bench = "ring_flood"
iterations = {n}
params = {{ burst = 64 }}
""")
    res = xtalk("run", spec, "--out", tmp_path / "out", "--json")
    assert res.returncode == 0, res.stderr
    meta = run_meta(tmp_path / "out", "solo-r1")
    assert meta["sample_count"] == n and meta["lost_samples"] == 0, meta


def test_ring_flood_writes_in_bursts_and_keeps_its_pace(bench, tmp_path):
    ring = make_ring(tmp_path / "ring", 1024)
    rc, recs, out = run(bench, "bench=ring_flood", "iterations=1000", "burst=100", "rate=10000", f"ring={ring}")
    assert rc == 0, out
    begin, end = check_begin_end(recs, "ring_flood")
    assert end["samples"] == "1000"
    _, samples = ring_samples(ring)
    times = [s["t"] for s in samples]
    assert len(set(times)) == 10 and times == sorted(times)  # 10 bursts of 100 sharing their t
    assert all(times[i] == times[i - i % 100] for i in range(1000))
    window = int(next(m for m in only(recs, "META") if "window_ticks_0" in m)["window_ticks_0"])
    assert window >= 0.09 * int(begin["freq_hz"])  # the 10th burst starts 900 / 10000 s into the window


def test_ring_flood_refuses_a_bad_burst(bench):
    rc, recs, out = run(bench, "bench=ring_flood", "burst=0")
    assert rc == 2 and only(recs, "ERROR")[0]["param"] == "burst", out
