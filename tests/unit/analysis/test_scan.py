"""The streaming scan of samples.parquet (analysis/scan.py) on files written for real:
row group by row group, with the metric column read only when the file's statistics do
not prove a single metric."""
import threading

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from tests.framework.synthetic import heavy_tail, write_campaign, write_run
from xtalk.analysis import accum, scan
from xtalk.analysis.accum import Stream, micro_block
from xtalk.analysis.scan import scan_run
from xtalk.results.samples_file import SAMPLES_SCHEMA, SAMPLES_WRITE_OPTIONS


def rows(metric: str, values: np.ndarray, first_t: float) -> pa.Table:
    n = len(values)
    zeros = np.zeros(n, np.int32)
    return pa.table({
        "run_id": pa.DictionaryArray.from_arrays(zeros, pa.array(["r"])),
        "config_id": pa.DictionaryArray.from_arrays(zeros, pa.array(["c"])),
        "attempt": np.ones(n, np.uint16),
        "metric": pa.DictionaryArray.from_arrays(zeros, pa.array([metric])),
        "seq": np.arange(n, dtype=np.uint64), "t": np.arange(n, dtype=np.uint64), "value": values,
        "flags": np.zeros(n, np.uint32), "value_ns": values.astype(np.float64),
        "t_s": first_t + np.arange(n) * 1e-6, "warmup": np.zeros(n, bool)}, schema=SAMPLES_SCHEMA)


def test_row_groups_each_of_one_metric_give_one_stream_per_metric(tmp_path):
    a, b = np.arange(1, 3001, dtype=np.uint64), np.arange(5000, 7000, dtype=np.uint64)
    with pq.ParquetWriter(tmp_path / "samples.parquet", SAMPLES_SCHEMA, **SAMPLES_WRITE_OPTIONS) as w:
        w.write_table(rows("a", a, 0.0))
        w.write_table(rows("b", b, 1.0))
    streams = scan_run(tmp_path, {"run_id": "r", "freq_hz": 1e9}, [], False)
    assert sorted(streams) == ["a", "b"]
    for name, values in (("a", a), ("b", b)):
        s = streams[name]
        assert (s.n, s.vmin, s.vmax) == (len(values), int(values.min()), int(values.max()))
        assert s.moments.mean == values.mean()


def test_a_run_of_one_metric_over_many_row_groups_is_read_whole_and_in_order(tmp_path):
    path = write_campaign(tmp_path / "c", "c", {}, ["solo-r1"])
    write_run(path, "solo-r1", {"placement": "solo"}, 50_000, heavy_tail(), chunk=7_000)
    run_dir = path / "runs" / "solo-r1"
    table = pq.read_table(run_dir / "samples.parquet")
    assert pq.ParquetFile(run_dir / "samples.parquet").metadata.num_row_groups == 8
    s = scan_run(run_dir, {"run_id": "solo-r1", "freq_hz": 1e9}, [], False)["m"]
    assert s.n == 50_000
    assert np.array_equal(s.exact, table["value"].to_numpy())
    assert np.array_equal(s.exact_t, table["t_s"].to_numpy())


def test_spans_of_small_row_groups_give_the_batches_of_one_pass_over_the_file(tmp_path, monkeypatch):
    monkeypatch.setattr(scan, "BATCH", 4096)
    monkeypatch.setattr(scan, "SPAN_ROWS", 16384)
    path = write_campaign(tmp_path / "c", "c", {}, ["solo-r1"])
    write_run(path, "solo-r1", {"placement": "solo"}, 100_000, heavy_tail(), chunk=1024)
    run_dir = path / "runs" / "solo-r1"
    pf = pq.ParquetFile(run_dir / "samples.parquet")
    whole = Stream("solo-r1", "m", 1e9, micro_block(100_000))
    for batch in pf.iter_batches(batch_size=4096, columns=["value", "t_s"]):
        whole.add(batch["value"].to_numpy(), batch["t_s"].to_numpy())
    spans = scan._row_group_spans(pf)
    assert len(spans) > 4 and all(sum(pf.metadata.row_group(i).num_rows for i in s) <= 4 * 16384 for s in spans)
    s = scan_run(run_dir, {"run_id": "solo-r1", "freq_hz": 1e9}, [], False)["m"]
    m, w = s.moments, whole.moments
    assert (m.n, m.mean, m.m2, m.m3, m.m4) == (w.n, w.mean, w.m2, w.m3, w.m4)
    assert np.array_equal(s.hist, whole.hist)
    assert all(np.array_equal(a, b) for a, b in zip(s.subsample(), whole.subsample()))


def test_a_run_sure_to_outgrow_the_exact_limit_keeps_no_exact_values_on_the_way(tmp_path, monkeypatch):
    """A stream keeps its exact values while it has at most EXACT_LIMIT samples. One whose
    file says it will have more (one metric, no warm-up to drop) keeps none from its first
    batch (16 MB less at the scan's peak), with the same statistics; a stream of one of two
    metrics in a file of more rows, within the limit itself, keeps them."""
    monkeypatch.setattr(accum, "EXACT_LIMIT", 20_000)
    monkeypatch.setattr(scan, "BATCH", 4096)
    monkeypatch.setattr(scan, "SPAN_ROWS", 4096)
    kept = []

    class Watched(Stream):
        def add(self, *args):
            super().add(*args)
            kept.append(self._exact is not None)

    monkeypatch.setattr(scan, "Stream", Watched)
    path = write_campaign(tmp_path / "c", "c", {}, ["solo-r1", "solo-r2"])
    write_run(path, "solo-r1", {"placement": "solo"}, 30_000, heavy_tail(), chunk=4096)
    write_run(path, "solo-r2", {"placement": "solo"}, 30_000, heavy_tail(), metric=("a", "b"), chunk=4096)
    run_dir = path / "runs" / "solo-r1"
    s = scan_run(run_dir, {"run_id": "solo-r1", "freq_hz": 1e9}, [], False)["m"]
    assert kept and not any(kept) and s.exact is None
    whole = Stream("solo-r1", "m", 1e9, micro_block(30_000))
    for batch in pq.ParquetFile(run_dir / "samples.parquet").iter_batches(batch_size=4096, columns=["value", "t_s"]):
        whole.add(batch["value"].to_numpy(), batch["t_s"].to_numpy())
    assert whole.exact is None
    m, w = s.moments, whole.moments
    assert (m.n, m.mean, m.m2, m.m3, m.m4) == (w.n, w.mean, w.m2, w.m3, w.m4)
    assert np.array_equal(s.hist, whole.hist) and np.array_equal(s.quantiles([0.5, 0.99])[0],
                                                                   whole.quantiles([0.5, 0.99])[0])
    kept.clear()
    two = scan_run(path / "runs" / "solo-r2", {"run_id": "solo-r2", "freq_hz": 1e9}, [], False)
    assert kept and all(kept) and sorted(len(s.exact) for s in two.values()) == [15_000, 15_000]


def test_one_run_is_scanned_in_the_calling_thread_several_in_workers(tmp_path, monkeypatch):
    """A worker thread's malloc arena kept 2-8 MB of a pass resident: one run (or one
    thread asked for) is scanned in the calling thread, several runs in parallel workers."""
    path = write_campaign(tmp_path / "c", "c", {}, ["solo-r1", "solo-r2"])
    for i, rid in enumerate(("solo-r1", "solo-r2")):
        write_run(path, rid, {"placement": "solo"}, 1000, heavy_tail(), seed=i)
    runs = [{"run_id": rid, "freq_hz": 1e9} for rid in ("solo-r1", "solo-r2")]
    where = []
    scan_one = scan.scan_run
    monkeypatch.setattr(scan, "scan_run", lambda *a: where.append(threading.current_thread()) or scan_one(*a))
    assert len(scan.scan(path, runs[:1], {}, [])) == 1 and where == [threading.main_thread()]
    assert len(scan.scan(path, runs, {}, [], threads=1)) == 2 and where[1:] == [threading.main_thread()] * 2
    where.clear()
    assert len(scan.scan(path, runs, {}, [], threads=2)) == 2 and threading.main_thread() not in where
