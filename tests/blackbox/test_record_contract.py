"""The run record is one contract: a run stored by every path that produces one (a native
campaign's runner, `xtalk import`, the fleet worker and the fleet's adoption of its run, a
fleet run stored as 'error', a run recovered as interrupted) has a meta.json that the
JSON Schema of RunRecord accepts, and events that the events' schema accepts; a key the
model does not declare is refused, in the schema and when the store saves it."""
from __future__ import annotations

import io
import json
import subprocess
import tarfile

import jsonschema
import numpy as np
import pytest
from pydantic import TypeAdapter

from xtalk.parsers.console_log import console_facts
from xtalk.results.record_file import stamp
from xtalk.results.records import Event, RecordError
from xtalk.results.run_record import json_schema
from xtalk.results.schema import SAMPLE_DTYPE
from xtalk.results.store import CampaignStore, read_run_record
from tests.framework.cli import XTALK, campaign_dir, write_spec, xtalk
from tests.framework.repo import ROOT

RUN_SCHEMA = jsonschema.Draft202012Validator(json_schema())
EVENT_SCHEMA = jsonschema.Draft202012Validator(TypeAdapter(Event).json_schema())
SPEC = """
name = "contract"
cpus = [0, 1]
[run]
duration_s = 0.6
grace_s = 5
[measurer]
bench = "qsort"
params = { size_kib = 64 }
[[stressors]]
name = "thrash"
bench = "cache_thrash"
params = { size = "1m" }
[matrix]
placement = ["same-core"]
[[timeline]]
at_s = 0.2
action = "pause"
target = "thrash"
[[timeline]]
at_s = 0.4
action = "resume"
target = "thrash"
"""


@pytest.fixture(autouse=True)
def built(native_bench):
    return native_bench


def checked(run_dir) -> dict:
    """The run's meta.json and events, each valid against its schema."""
    meta = json.loads((run_dir / "meta.json").read_text())
    RUN_SCHEMA.validate(meta)
    for line in (run_dir / "events.jsonl").read_text().splitlines():
        EVENT_SCHEMA.validate(json.loads(line))
    return meta


def test_a_runner_run_matches_the_schema(tmp_path):
    res = xtalk("run", write_spec(tmp_path, SPEC), "--out", tmp_path / "out")
    assert res.returncode == 0, res.stderr
    meta = checked(campaign_dir(tmp_path / "out") / "runs" / "same-core-r1")
    assert {"backend_metadata", "guests", "noise", "stressors_watch", "pressure", "caches", "sizes"} <= set(meta)
    assert meta["pressure"]["thrash"]["rate"] > 0 and meta["pressure"]["thrash"]["unit"] == "bytes/s"
    assert meta["stressors_watch"]["thrash"]["timeline"]  # the events' effects were checked and stored


def test_an_imported_run_matches_the_schema(tmp_path):
    log = ROOT / "tests" / "data" / "zephyr" / "latency_measure-qemu_x86_64-tcg.log"
    res = xtalk("import", "imp", "--output", "zephyr-latency-measure", "--out", tmp_path, log)
    assert res.returncode == 0, res.stderr
    assert checked(campaign_dir(tmp_path) / "runs" / "solo-r1")["imported_from"] == str(log)


def test_a_fleet_workers_run_and_its_adoption_match_the_schema(tmp_path):
    job = {"spec": SPEC, "overrides": [], "values": {}, "run_id": "same-core-r1", "attempt": 1,
           "as": {"run_id": "same-core-r1_board-a", "config_id": "same-core_board-a",
                  "config": {"placement": "same-core", "board": "board-a"}}}
    worker = subprocess.Popen([*XTALK, "worker"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    worker.stdin.write((json.dumps(job) + "\n").encode())
    worker.stdin.flush()  # kept open: EOF would stop the run
    stream = worker.stdout.read()
    worker.stdin.close()
    assert worker.wait(60) == 0, worker.stderr.read().decode()
    sent = tmp_path / "incoming"
    with tarfile.open(fileobj=io.BytesIO(stream), mode="r|") as tar:
        tar.extractall(sent, filter="data")
    assert checked(sent)["board_host"]["hostname"]

    store = CampaignStore.create(tmp_path / "out", "contract", SPEC, {"name": "contract"}, {}, ["same-core-r1_board-a"])
    host = read_run_record(sent)["board_host"]
    meta = store.adopt_run("same-core-r1_board-a", sent,
                           serial_console={"log": "serial.log", "port": "lab:4000", "protocol": "rfc2217",
                                           "bytes": 10, "problems": []},
                           fleet={"place": "board-a", "kind": "rpi", "reach": "ssh", "address": "10.0.0.2",
                                  "mode": "per-board", "board": {k: host.get(k) for k in ("hostname", "kernel")}})
    stored = checked(store.run_dir("same-core-r1_board-a"))
    assert stored.pop("record_sha256")  # the record's own hash (records.sealed), written with it
    assert stored.pop("checked") == stamp(stored)  # this code's stamp: it checked the record it adopted
    meta = {k: v for k, v in meta.items() if k != "checked"}  # the worker's stamp, as the worker sent it
    assert stored == {**{k: v for k, v in meta.items() if k != "record_sha256"}, "schema_version": meta["schema_version"]}


def test_a_finalized_run_matches_the_schema_errored_or_recovered(tmp_path):
    store = CampaignStore.create(tmp_path, "c", "name='c'", {"name": "c"}, {}, ["solo-r1", "solo-r2"])
    plan = {"config_id": "solo", "config": {"placement": "solo"}, "placement": "solo", "campaign": "c",
            "measurer": {"bench": "qsort", "params": {}, "cpus": [0], "output": "xt", "parser": {}}}
    store.start_run(dict(plan, run_id="solo-r1", fleet={"place": "board-a", "kind": "rpi", "reach": "ssh",
                                                         "mode": "spread"},
                         serial_console={"log": None, "why": "place board-a has no NetworkSerialPort resource"})
                    ).finish("error", "board-a went down")
    writer = store.start_run(dict(plan, run_id="solo-r2"))
    writer.console("measurer", b"XT BEGIN run=solo-r2 t0=0 freq_hz=1000000000\nXT METRIC run=solo-r2 id=0 name=qsort unit=cycles kind=duration\n")
    records = np.zeros(3, SAMPLE_DTYPE)
    records["seq"], records["value"] = np.arange(3), 100
    writer.samples(records)
    writer.close()  # xtalk dies here: the run stays 'running'
    assert CampaignStore(store.path).recover_interrupted(console_facts) == ["solo-r2"]
    assert checked(store.run_dir("solo-r1"))["status"] == "error"
    recovered = checked(store.run_dir("solo-r2"))
    assert recovered["status"] == "interrupted" and recovered["freq_hz"] == 1e9
    assert recovered["metrics"]["0"]["name"] == "qsort"  # from the console log


def test_a_key_the_model_does_not_declare_is_refused(tmp_path):
    store = CampaignStore.create(tmp_path, "c", "name='c'", {"name": "c"}, {}, ["solo-r1"])
    writer = store.start_run({"run_id": "solo-r1", "config_id": "solo"})
    good = json.loads((writer.path / "meta.json").read_text())
    RUN_SCHEMA.validate(good)
    native = {"backend": "native", "binary_sha256": "ab"}
    RUN_SCHEMA.validate({**good, "backend_metadata": native})
    for bad in ({**good, "sample_cout": 3}, {**good, "noise": {"wall_s": 1.0, "nosiy_cpus": []}},
                {**good, "backend_metadata": {**native, "binary_sha": "ab"}}):  # the native backend's own keys
        with pytest.raises(jsonschema.ValidationError):
            RUN_SCHEMA.validate(bad)
    with pytest.raises(RecordError, match="binary_sha"):
        writer.save_meta(backend_metadata={**native, "binary_sha": "ab"})
    writer.save_meta(backend_metadata={"backend": "not-installed-here", "its_own": 1})  # kept as it wrote it
    assert json.loads((writer.path / "meta.json").read_text())["backend_metadata"]["its_own"] == 1
    with pytest.raises(RecordError, match="pidd"):  # a guest's facts are its backend's
        writer.save_meta(backend="native", guests={"measurer": {"argv": ["x"], "pidd": 1}})
    writer.save_meta(backend="native", guests={"measurer": {"argv": ["x"], "pid": 1}})
    with pytest.raises(RecordError, match="domid"):  # a xen domain's key is no native process's
        writer.save_meta(guests={"measurer": {"argv": ["x"], "domid": 1}})
    writer.save_meta(guests={"measurer": {"pid": 1}})
    with pytest.raises(RecordError, match="sample_cout"):
        writer.save_meta(sample_cout=3)
    with pytest.raises(ValueError, match="eror_ms"):
        writer.event("timeline", 1, action="stop", target="thrash", eror_ms=0.1)
    with pytest.raises(jsonschema.ValidationError):
        EVENT_SCHEMA.validate({"kind": "run_end", "host_ns": 1, "status": "pass", "resaon": ""})
