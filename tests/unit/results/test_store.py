import json
import os

import numpy as np
import pyarrow.parquet as pq

from tests.framework.store_data import meta, new_store, samples
from xtalk.parsers.console_log import console_facts
from xtalk.instruments.measure import INSTRUMENT_METRIC
from xtalk.results.finalize import CHUNK
from xtalk.results.schema import HOST_SEQ
from xtalk.results.query import connect
from xtalk.results.store import CampaignStore


def test_run_files_and_parquet_with_derived_columns(tmp_path):
    store = new_store(tmp_path)
    w = store.start_run(meta("solo-r1", warmup_s=0.5))
    # guest counter at 1 GHz; guest counter 0 == host 5e9 ns; measurer started at host 5e9 ns
    w.save_meta(origin_host_ns=5_000_000_000, freq_hz=1e9, metrics={"0": {"name": "qsort", "unit": "cycles"}})
    w.clock(5_000_000_000 + 300_000_000 + 2_000, 300_000_000)  # read 2 us after the write
    w.clock(5_000_000_000 + 600_000_000 + 50, 600_000_000)     # read 50 ns after: the tighter pair
    w.console("measurer", b"XT BEGIN run=solo-r1\n")
    w.event("timeline", 5_100_000_000, action="start", target="thrash")
    w.samples(samples([10, 20, 30], period=400_000_000))
    m = w.finish("pass")
    assert m["sample_count"] == 3 and m["lost_samples"] == 0 and m["clock_offset_ns"] == 5e9 + 50
    table = pq.read_table(store.run_dir("solo-r1") / "samples.parquet").to_pydict()
    assert table["metric"] == ["qsort"] * 3 and table["value_ns"] == [10.0, 20.0, 30.0]
    assert np.allclose(table["t_s"], [0.4, 0.8, 1.2], atol=1e-6)
    assert table["warmup"] == [True, False, False]
    assert (store.run_dir("solo-r1") / "console" / "measurer.log").read_bytes() == b"XT BEGIN run=solo-r1\n"
    con = connect(store)
    assert con.execute("SELECT count(*), sum(value) FROM samples").fetchone() == (3, 60)
    assert con.execute("SELECT status FROM runs").fetchone() == ("pass",)
    assert con.execute("SELECT action, target FROM events WHERE kind='timeline'").fetchone() == ("start", "thrash")


def test_sequence_gaps_are_counted_as_lost(tmp_path):
    store = new_store(tmp_path)
    w = store.start_run(meta("solo-r1"))
    s = samples([1, 2, 3, 4, 5])
    w.samples(s[[0, 1, 4]])
    assert w.finish("pass")["lost_samples"] == 2


def test_an_instruments_samples_keep_their_host_ns_and_the_guests_loss_count(tmp_path):
    """Guest samples in 100 MHz ticks beside an instrument's in host ns (clock = "host"):
    each gets its own ns and time, and the instrument's seq is no gap in the guest's."""
    store = new_store(tmp_path)
    w = store.start_run(meta("solo-r1"))
    w.save_meta(origin_host_ns=7_000_000_000, freq_hz=1e8, metrics={
        "0": {"name": "qsort", "unit": "cycles"},
        str(INSTRUMENT_METRIC): {"name": "irq_latency", "unit": "ns", "kind": "latency", "clock": "host"}})
    w.clock(7_000_000_000, 0)  # guest counter 0 at the origin
    guest = samples([10, 20, 30], period=50_000_000)  # every 0.5 s of guest time
    guest = guest[[0, 2]]  # one lost
    outside = samples([1_750, 750], t0=7_000_000_000, period=250_000_000, metric=INSTRUMENT_METRIC)
    outside["seq"] += HOST_SEQ
    w.samples(guest)
    w.samples(outside)
    m = w.finish("pass")
    assert m["sample_count"] == 4 and m["lost_samples"] == 1
    table = pq.read_table(store.run_dir("solo-r1") / "samples.parquet").to_pydict()
    assert table["metric"] == ["qsort", "qsort", "irq_latency", "irq_latency"]
    assert table["value_ns"] == [100.0, 300.0, 1750.0, 750.0]
    assert np.allclose(table["t_s"], [0.5, 1.5, 0.25, 0.5], atol=1e-9)


def test_samples_are_converted_chunk_by_chunk_in_order_and_whole(tmp_path):
    store = new_store(tmp_path)
    w = store.start_run(meta("solo-r1"))
    w.save_meta(freq_hz=1e9, metrics={"0": {"name": "a", "unit": "cycles"}, "1": {"name": "b", "unit": "cycles"}})
    values = np.arange(CHUNK + 5) * 7
    s = samples(values)
    s["metric"] = np.arange(CHUNK + 5) % 2
    w.samples(s)
    os.write(w._fds["samples"], b"\0" * 10)  # a torn last record, as a kill leaves: not a sample
    assert w.finish("pass")["sample_count"] == CHUNK + 5
    pf = pq.ParquetFile(store.run_dir("solo-r1") / "samples.parquet")
    assert [pf.metadata.row_group(i).num_rows for i in range(pf.metadata.num_row_groups)] == [CHUNK, 5]
    table = pf.read().to_pydict()
    assert table["value"] == values.tolist() and table["seq"] == list(range(CHUNK + 5))
    assert table["metric"][-3:] == ["a", "b", "a"] and table["metric"].count("b") == (CHUNK + 5) // 2


def test_a_run_left_running_is_recovered_with_its_samples(tmp_path):
    store = new_store(tmp_path, runs=("solo-r1", "solo-r2"))
    done = store.start_run(meta("solo-r1"))
    done.samples(samples([1, 2]))
    done.finish("pass")
    killed = store.start_run(meta("solo-r2"))
    killed.console("measurer", b"XT BEGIN run=solo-r2 freq_hz=1000\nXT METRIC run=solo-r2 id=0 name=qsort unit=cycles\n")
    killed.samples(samples([5, 6, 7]))
    for fd in killed._fds.values():  # as if xtalk were SIGKILLed: nothing closed or finished
        os.close(fd)
    reopened = CampaignStore(store.path)
    assert reopened.recover_interrupted(console_facts) == ["solo-r2"]
    m = json.loads((store.run_dir("solo-r2") / "meta.json").read_text())
    assert m["status"] == "interrupted" and m["sample_count"] == 3 and m["freq_hz"] == 1000
    assert reopened.completed_run_ids() == {"solo-r1"}
    counts = dict(connect(reopened).execute("SELECT metric, count(*) FROM samples GROUP BY 1").fetchall())
    assert counts == {"qsort": 3, "unknown": 2}  # solo-r1 declared no metric
    again = reopened.start_run(meta("solo-r2"))  # a resume keeps the interrupted attempt aside
    assert (store.path / "runs" / "solo-r2.attempt1" / "samples.bin").stat().st_size == 3 * 32
    again.finish("pass")
    assert [r["run_id"] for r in reopened.runs()] == ["solo-r1", "solo-r2"]


def test_latest_finds_campaign_by_name(tmp_path):
    first = new_store(tmp_path)
    second = new_store(tmp_path)
    assert first.path != second.path
    assert CampaignStore.latest(tmp_path, "c").path == max(first.path, second.path)
    assert CampaignStore.latest(tmp_path, "other") is None


def test_a_running_runs_meta_is_not_flushed_its_final_one_is(tmp_path, monkeypatch):
    """No fsync inside a measured window (save_meta while the run goes on); the record of
    the run's end is flushed to disk before it is renamed into place."""
    store = new_store(tmp_path)
    w = store.start_run(meta("solo-r1"))
    flushed = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: flushed.append(os.readlink(f"/proc/self/fd/{fd}")) or real(fd))
    w.save_meta(origin_host_ns=1)
    assert flushed == [] and json.loads((w.path / "meta.json").read_text())["origin_host_ns"] == 1
    assert w.finish("pass")["status"] == "pass"
    assert any(os.path.basename(path).startswith(".meta.json.") for path in flushed)
    assert not [p.name for p in w.path.iterdir() if p.name.startswith(".")]


def test_a_started_run_whose_directory_is_gone_is_missing_not_unrun(tmp_path):
    """A deleted run directory was "1 not run", exit 0 (the adversarial probe): the ledger
    says it was started, so it is listed missing; a run never started is not."""
    import shutil
    from xtalk.report.headline import runs_part
    store = new_store(tmp_path, runs=("solo-r1", "solo-r2", "solo-r3"))
    for rid in ("solo-r1", "solo-r2"):
        run = store.start_run(meta(rid))
        run.samples(samples([1, 2]))
        run.finish("pass")
    shutil.rmtree(store.run_dir("solo-r2"))
    index = CampaignStore(store.path).index()
    assert [r.meta["run_id"] for r in index.runs] == ["solo-r1"]
    (gone,) = index.damaged
    row = gone.row(store.path)
    assert (row["run"], row["status"], row["config_id"], row["final"]) == ("solo-r2", "missing", "solo", True)
    assert "attempt 1 was started" in row["reason"]
    runs = runs_part({"runs": [{"run_id": "solo-r1", "status": "pass"}], "left_out": [row],
                      "campaign": {"planned_runs": ["solo-r1", "solo-r2", "solo-r3"]}})
    assert (runs["failed"], runs["not_run"], runs["state"]) == (1, 1, "failed")
    assert runs["not_passed"] == {"solo-r2": "missing (runs/solo-r2)", "solo-r3": "not run"}


def test_a_torn_ledger_line_is_skipped_and_the_last_attempt_counts(tmp_path):
    store = new_store(tmp_path, runs=("solo-r1",))
    for _ in range(2):  # a resume: attempt 2
        store.start_run(meta("solo-r1")).finish("interrupted")
    with open(store.path / "runs.ledger", "ab") as ledger:
        ledger.write(b'{"run_id": "solo-r9", "att')  # a kill midway through a line
    import shutil
    shutil.rmtree(store.run_dir("solo-r1"))
    (gone,) = CampaignStore(store.path).index().damaged
    assert gone.dir.name == "solo-r1" and "attempt 2" in gone.error.reason
