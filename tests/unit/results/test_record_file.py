"""The `checked` stamp (record_file.py): a record the store checked and wrote reads back
without its models only while it is, byte for byte, what this very code checked; `xtalk
list` then says of it what the models would, and of any other record what the models say."""
import json
import os

from tests.framework.cli import xtalk
from tests.framework.store_data import meta, new_store, samples
from xtalk.results.manifest import manifest
from xtalk.results.record_file import CHECKED_KEY, checked_record, code_digest, record_hash
from xtalk.results.records import load_run
from xtalk.results.store import CampaignStore, save_run_record


def finished_run(tmp_path):
    store = new_store(tmp_path / "out", runs=("solo-r1",))
    w = store.start_run(meta("solo-r1"))
    w.samples(samples([1, 2, 3]))
    w.finish("pass")
    return store, store.run_dir("solo-r1")


def rewritten(path, **changes):
    """The record with `changes`, its own hash made anew (as a hand that knows the format would)."""
    record = {k: v for k, v in json.loads(path.read_text()).items() if k != "record_sha256"}
    record.update(changes)
    path.write_text(json.dumps({**record, "record_sha256": record_hash(record)}))


def test_what_the_store_wrote_reads_back_as_checked(tmp_path):
    store, run = finished_run(tmp_path)
    assert checked_record(store.path / "campaign.json")["name"] == store.info["name"]
    record = checked_record(run / "meta.json")
    assert record["status"] == "pass" and record["sample_count"] == 3
    assert record == json.loads((run / "meta.json").read_text())


def test_a_record_changed_after_its_check_is_checked_again(tmp_path):
    store, run = finished_run(tmp_path)
    rewritten(run / "meta.json", sample_count="many")  # its own hash right, its stamp not
    assert checked_record(run / "meta.json") is None
    index = CampaignStore(store.path, quick=True).index()
    assert index.runs == [] and [d.error.reason for d in index.damaged] == ["sample_count: Input should be a valid "
                                                                            "integer, unable to parse string as an "
                                                                            "integer"]
    listed = xtalk("list", "--out", store.path.parent)
    assert listed.returncode == 0 and "corrupt: solo-r1/meta.json: sample_count" in " ".join(listed.stdout.split())


def test_a_stamp_of_other_code_does_not_count(tmp_path):
    store, run = finished_run(tmp_path)
    campaign = store.path / "campaign.json"
    record = json.loads(campaign.read_text())
    campaign.write_text(json.dumps(dict(record, name=7, **{CHECKED_KEY: "0" * 64})))  # stamped elsewhere
    assert checked_record(campaign) is None
    listed = xtalk("list", "--out", store.path.parent)
    assert listed.returncode == 0 and "name: Input should be a valid string" in " ".join(listed.stdout.split())


def test_a_run_whose_events_do_not_read_is_not_stamped(tmp_path):
    store, run = finished_run(tmp_path)
    with open(run / "events.jsonl", "a") as events:
        events.write('{"kind": "no such event"}\n')
    save_run_record(run, dict(load_run(run / "meta.json", 1), files=manifest(run)))
    assert checked_record(run / "meta.json") is None  # meta.json is right, what it vouches for is not
    index = CampaignStore(store.path, quick=True).index()
    assert [(d.error.file.name, d.error.label) for d in index.damaged] == [("events.jsonl", "corrupt")]


def test_the_fingerprint_follows_the_code_and_the_installed_distributions(tmp_path):
    package, site, script = tmp_path / "xtalk", tmp_path / "site", tmp_path / "bin"
    for d in (package / "results" / "__pycache__", site / "pydantic-2.13.4.dist-info", script):
        d.mkdir(parents=True)
    (package / "results" / "records.py").write_text("A = 1\n")
    first = code_digest(package, [str(script), str(site)])
    (package / "results" / "__pycache__" / "records.cpython-311.pyc").write_bytes(b"compiled")
    assert code_digest(package, [str(site)]) == first  # bytecode, and a script's directory, count for nothing
    os.utime(package / "results" / "records.py", ns=(0, 1))
    touched = code_digest(package, [str(site)])
    assert touched != first
    (site / "pydantic-2.13.4.dist-info").rename(site / "pydantic-2.14.0.dist-info")
    assert code_digest(package, [str(site)]) not in (first, touched)
