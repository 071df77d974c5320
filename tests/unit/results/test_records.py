"""The store's records: format versions, attempts, and damaged files that affect only
their own run or campaign (written for real, then read back through the store)."""
import json
import os

import pyarrow.parquet as pq
import pytest

from tests.framework.store_data import campaign_of_format, meta, new_store, samples
from tests.framework.synthetic import heavy_tail, write_campaign, write_run
from xtalk.parsers.console_log import console_facts
from xtalk.analysis.pipeline import analyze
from xtalk.results.query import connect
from xtalk.results.records import BEFORE_PRESSURE, SCHEMA_VERSION, RecordError, sealed
from xtalk.results.store import CampaignStore, catalog


def finished(store, run_id, values=(1, 2, 3)):
    w = store.start_run(meta(run_id))
    w.samples(samples(list(values)))
    return w.finish("pass")


def synthetic(tmp_path, runs=("solo-r1", "solo-r2", "same-core-r1", "same-core-r2"), version=SCHEMA_VERSION):
    """A campaign of `runs` in format `version` (5: from before manifests, whose damaged files
    are found by reading them, not by their hashes)."""
    path = write_campaign(tmp_path / "c", "c", {}, list(runs), schema_version=version)
    for i, rid in enumerate(runs):
        write_run(path, rid, {"placement": rid.rsplit("-", 1)[0]}, 400, heavy_tail(), seed=i, index=i,
                  extra_meta={"schema_version": version})
    return path


def test_records_carry_the_version_and_the_attempt(tmp_path):
    store = new_store(tmp_path, runs=("solo-r1",))
    finished(store, "solo-r1")
    finished(store, "solo-r1", values=(4, 5))  # what --resume does with a run it redoes
    index = store.index()
    assert [(r.dir.name, r.meta["attempt"], r.final) for r in index.runs] == [
        ("solo-r1.attempt1", 1, False), ("solo-r1", 2, True)]
    saved = json.loads((store.run_dir("solo-r1") / "meta.json").read_text())
    assert saved["schema_version"] == SCHEMA_VERSION and saved["attempt"] == 2
    assert pq.read_table(store.run_dir("solo-r1") / "samples.parquet").column("attempt").to_pylist() == [2, 2]
    assert store.runs() == [index.runs[1].meta]


def test_a_format_1_run_takes_its_attempt_from_its_directory(tmp_path):
    store = new_store(tmp_path, runs=("solo-r1",))
    finished(store, "solo-r1")
    finished(store, "solo-r1")
    for d in ("solo-r1", "solo-r1.attempt1"):  # as an xtalk of format 1 wrote them
        path = store.path / "runs" / d / "meta.json"
        old = json.loads(path.read_text())
        del old["attempt"], old["record_sha256"]  # format 1 had neither
        path.write_text(json.dumps(dict(old, schema_version=1)))
    assert [(r.meta["attempt"], r.final) for r in campaign_of_format(store, 1).index().runs] == [(1, False), (2, True)]


def test_a_format_4_run_says_why_its_stressors_have_no_pressure(tmp_path):
    store = new_store(tmp_path, runs=("same-core-r1",))
    finished(store, "same-core-r1")
    path = store.run_dir("same-core-r1") / "meta.json"
    old = {k: v for k, v in json.loads(path.read_text()).items() if k != "record_sha256"}  # format 4 had none
    path.write_text(json.dumps(dict(old, schema_version=4, stressors=[{"name": "thrash", "bench": "cache_thrash"}])))
    (run,) = campaign_of_format(store, 4).index().runs
    assert run.meta["schema_version"] == SCHEMA_VERSION == 9
    assert run.meta["pressure"] == {"thrash": {"not_reported": BEFORE_PRESSURE}}


def test_a_newer_format_is_refused_with_a_message(tmp_path):
    store = new_store(tmp_path, runs=("solo-r1",))
    finished(store, "solo-r1")
    path = store.run_dir("solo-r1") / "meta.json"
    path.write_text(json.dumps(dict(json.loads(path.read_text()), schema_version=SCHEMA_VERSION + 1)))
    (damaged,) = store.index().damaged
    assert damaged.error.label == "newer format" and "use a newer xtalk" in damaged.error.reason
    (store.path / "campaign.json").write_text(json.dumps({"schema_version": 99}))
    with pytest.raises(RecordError, match="format version 99 is newer"):
        CampaignStore(store.path)


CORRUPT_META = {
    b'{"run_id": "same-core-r1", "sta': "not valid JSON",
    b"\x00\x00\x00\x00": "not valid JSON",
    b"": "empty",
    b"[1, 2]": "not a JSON object",
}


@pytest.mark.parametrize("content", list(CORRUPT_META))
def test_a_corrupt_meta_json_damages_only_its_run(tmp_path, content):
    path = synthetic(tmp_path)
    (path / "runs" / "same-core-r1" / "meta.json").write_bytes(content)
    index = CampaignStore(path).index()
    assert [r.meta["run_id"] for r in index.runs] == ["solo-r1", "solo-r2", "same-core-r2"]
    (damaged,) = index.damaged
    assert damaged.dir.name == "same-core-r1" and CORRUPT_META[content] in damaged.error.reason


def test_wrong_values_and_unreadable_files_are_damage_too(tmp_path):
    path = synthetic(tmp_path)
    meta_path = path / "runs" / "solo-r2" / "meta.json"
    meta_path.write_text(json.dumps(dict(json.loads(meta_path.read_text()), status="banana")))
    (path / "runs" / "same-core-r2" / "meta.json").unlink()
    (path / "runs" / "same-core-r2" / "meta.json").mkdir()
    rows = {d.dir.name: d.row(path) for d in CampaignStore(path).index().damaged}
    assert rows["solo-r2"]["file"] == "runs/solo-r2/meta.json" and rows["solo-r2"]["reason"].startswith("status:")
    assert rows["same-core-r2"]["reason"] == "a directory, not a regular file"


@pytest.mark.parametrize("damage, reason", [
    (lambda p: p.write_bytes(p.read_bytes()[:-100]), "not a readable Parquet file"),
    (lambda p: p.write_bytes(b"PAR1 garbage " * 50), "not a readable Parquet file"),
    (lambda p: p.unlink(), "missing"),
])
def test_a_damaged_samples_file_is_left_out_and_said(tmp_path, damage, reason):
    path = synthetic(tmp_path, version=5)
    damage(path / "runs" / "same-core-r1" / "samples.parquet")
    res = analyze(CampaignStore(path)).result
    (row,) = res["left_out"]
    assert row["run"] == "same-core-r1" and row["file"] == "runs/same-core-r1/samples.parquet"
    assert reason in row["reason"]
    assert {s["config_id"]: s["runs"] for s in res["stats"]} == {"solo": 2, "same-core": 1}
    assert any(w["scope"] == "same-core-r1" and "left out of the statistics" in w["message"] for w in res["warnings"])


def test_samples_that_fail_mid_file_are_left_out_and_a_configuration_without_runs_is_named(tmp_path):
    path = synthetic(tmp_path, runs=("solo-r1", "solo-r2", "same-core-r1"), version=5)
    target = path / "runs" / "same-core-r1" / "samples.parquet"
    data = bytearray(target.read_bytes())
    data[100:2000] = bytes(1900)  # the pages, not the footer: found only while scanning
    target.write_bytes(bytes(data))
    assert not CampaignStore(path).index().damaged
    res = analyze(CampaignStore(path)).result
    assert [r["run"] for r in res["left_out"]] == ["same-core-r1"]
    assert [s["config_id"] for s in res["stats"]] == ["solo"]
    assert any(w["scope"] == "same-core" and "no run of this configuration" in w["message"] for w in res["warnings"])


def test_events_cut_by_a_kill_are_read_and_garbage_is_damage(tmp_path):
    path = synthetic(tmp_path, version=5)
    events = path / "runs" / "solo-r1" / "events.jsonl"
    events.write_text('{"kind": "measurer_begin", "host_ns": 1}\n{"kind": "tim')
    assert not CampaignStore(path).index().damaged
    events.write_bytes(b'{"kind": "measurer_begin", "host_ns": 1}\n\xff\xfe garbage\n{"kind": "run_end"}\n')
    (damaged,) = CampaignStore(path).index().damaged
    assert damaged.error.file == events and damaged.error.reason.startswith("line 2:")


def test_a_corrupt_campaign_json_is_listed_and_its_neighbours_are_not_affected(tmp_path):
    good = synthetic(tmp_path)
    bad = write_campaign(tmp_path / "b", "b", {}, [])
    (bad / "campaign.json").write_text('{"schema_version": 2, "name": "b"')
    stores, damaged = catalog(tmp_path)
    assert [s.path for s in stores] == [good] and [e.file for e in damaged] == [bad / "campaign.json"]


def test_query_counts_the_last_attempt_and_shows_every_attempt_on_request(tmp_path):
    store = new_store(tmp_path, runs=("solo-r1", "solo-r2"))
    finished(store, "solo-r1", values=(1, 2, 3))
    finished(store, "solo-r1", values=(4, 5))
    store.start_run(meta("solo-r2")).close()  # left running: no samples.parquet yet
    con = connect(store)
    assert con.execute("SELECT count(*), sum(value) FROM samples").fetchone() == (2, 9)
    assert con.execute("SELECT attempt, final, count(*) FROM all_samples GROUP BY ALL ORDER BY 1").fetchall() == [
        (1, False, 3), (2, True, 2)]
    assert con.execute("SELECT run_id, attempt, status FROM runs ORDER BY 1").fetchall() == [
        ("solo-r1", 2, "pass"), ("solo-r2", 1, "running")]
    assert con.execute("SELECT count(*) FROM all_runs").fetchone() == (3,)


def test_query_of_a_campaign_without_samples_and_of_its_damage(tmp_path):
    store = new_store(tmp_path, runs=("solo-r1",))
    con = connect(store)
    assert con.execute("SELECT count(*) FROM samples").fetchone() == (0,)
    assert "attempt" in [c[0] for c in con.execute("DESCRIBE samples").fetchall()]
    finished(store, "solo-r1")
    (store.run_dir("solo-r1") / "samples.parquet").write_bytes(b"garbage")
    con = connect(store)
    assert con.execute("SELECT run, file, final FROM damaged").fetchall() == [
        ("solo-r1", "runs/solo-r1/samples.parquet", True)]
    assert con.execute("SELECT count(*) FROM samples").fetchone() == (0,)


def test_a_crashed_run_with_garbage_clock_pairs_is_recovered_from_the_good_ones(tmp_path):
    store = new_store(tmp_path)
    w = store.start_run(meta("solo-r1"))
    w.save_meta(freq_hz=1e9)
    w.clock(5_000_000_100, 0)
    w.samples(samples([1, 2]))
    for fd in w._fds.values():  # as if xtalk were SIGKILLed, and the machine after it
        os.close(fd)
    with open(store.run_dir("solo-r1") / "clock.csv", "ab") as f:
        f.write(b"\x00\x00\x00\n12,")
    assert CampaignStore(store.path).recover_interrupted(console_facts) == ["solo-r1"]
    (recovered,) = CampaignStore(store.path).runs()
    assert recovered["status"] == "interrupted" and recovered["clock_offset_ns"] == 5_000_000_100


def test_a_degraded_run_is_kept_never_used_and_not_redone(tmp_path):
    """Format 3: status degraded and the stressors' watch (src/xtalk/running/watch.py) in meta.json."""
    path = synthetic(tmp_path)
    meta_path = path / "runs" / "same-core-r2" / "meta.json"
    watch = {"thrash": {"exposure": 0.2, "cpu_share": 0.1, "on_s": 3.0, "stopped_s": 2.4, "alive": True,
                        "exit": None, "end": None, "errors": [], "timeline": []}}
    reason = "stressor thrash was stopped by someone else for 2.4 s of its 3.0 s on-time"
    meta_path.write_text(sealed(dict(json.loads(meta_path.read_text()), status="degraded", reason=reason,
                                     stressors_watch=watch)))  # as xtalk writes it
    store = CampaignStore(path)
    assert not store.index().damaged and "same-core-r2" in store.completed_run_ids()
    res = analyze(store).result
    assert {s["config_id"]: s["runs"] for s in res["stats"]} == {"solo": 2, "same-core": 1}
    (warning,) = [w for w in res["warnings"] if w["scope"] == "same-core-r2"]
    assert warning == {"level": "warning", "scope": "same-core-r2",
                       "message": f"run status degraded: {reason} — excluded from the statistics"}
    meta_path.write_text(json.dumps(dict(json.loads(meta_path.read_text()), stressors_watch={"thrash": {
        "exposure": "most"}})))
    (damaged,) = CampaignStore(path).index().damaged
    assert damaged.error.reason.startswith("stressors_watch.thrash.exposure:")


def test_samples_are_written_split_and_delta_coded_and_read_back_exactly(tmp_path):
    store = new_store(tmp_path)
    finished(store, "solo-r1", values=range(1000, 1300))
    pf = pq.ParquetFile(store.path / "runs" / "solo-r1" / "samples.parquet")
    encodings = {pf.metadata.row_group(0).column(j).path_in_schema: pf.metadata.row_group(0).column(j).encodings
                 for j in range(pf.metadata.num_columns)}
    assert "BYTE_STREAM_SPLIT" in encodings["t_s"] and "DELTA_BINARY_PACKED" in encodings["t"]
    assert pf.read(columns=["value"])["value"].to_pylist() == list(range(1000, 1300))
    assert connect(store).execute("SELECT sum(value), count(t_s) FROM samples").fetchone() == (sum(range(1000, 1300)), 300)
