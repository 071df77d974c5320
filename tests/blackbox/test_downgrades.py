"""A stored campaign's records cannot escape their checks (issue 58), through the real xtalk
command: a run record that claims an older format than its campaign's, or has lost its hash,
is damaged; campaign.json's plan, spec.toml and runs.ledger are checked too; a copy of a
run's directory taken as an earlier attempt is damaged; --resume redoes a run changed in
place (its size and mtime kept); and a campaign written before records were hashed is
"unverifiable" under --verify, never passed."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.framework.cli import xtalk
from tests.framework.stored_campaign import stored_copy


@pytest.fixture
def campaign(tmp_path_factory, native_bench, tmp_path) -> Path:
    return stored_copy(tmp_path_factory, tmp_path)


def edit(path: Path, **fields) -> None:
    """Change a record's fields (None: take the key out), its mtime kept."""
    st, record = path.stat(), json.loads(path.read_text())
    for key, value in fields.items():
        if value is None:
            record.pop(key, None)
        else:
            record[key] = value
    path.write_text(json.dumps(record, indent=2, sort_keys=True))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def flip_a_byte(path: Path) -> None:
    """Another content of the same size and mtime: only a hash sees it."""
    st, data = path.stat(), bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def verify(campaign: Path):
    return xtalk("show", "small", "--out", campaign.parent, "--verify")


def test_a_run_record_that_claims_an_older_format_without_hashes_is_damaged(campaign):
    """Issue 58: schema_version 5, no hash, no manifest, samples changed: passed --verify and report."""
    run = campaign / "runs" / "same-core-r1"
    flip_a_byte(run / "samples.parquet")
    edit(run / "meta.json", schema_version=5, record_sha256=None, files=None, checked=None)
    shown = verify(campaign)
    assert shown.returncode == 3, shown.stdout + shown.stderr
    assert "same-core-r1: format 5, older than its campaign.json's 9" in shown.stderr, shown.stderr
    report = xtalk("report", "small", "--out", campaign.parent, "--json", "--no-samples")
    assert any(w["scope"] == "same-core-r1" and w["message"].startswith("damaged: runs/same-core-r1/meta.json: format 5")
               for w in json.loads(report.stdout)["warnings"]), report.stdout


def test_a_run_record_without_its_hash_or_manifest_is_damaged(campaign):
    meta = campaign / "runs" / "solo-r1" / "meta.json"
    edit(meta, record_sha256=None, checked=None)
    shown = verify(campaign)
    assert shown.returncode == 3 and "solo-r1: no record_sha256, which every record of format 8 or later is written " \
                                     "with (format 9)" in shown.stderr, shown.stderr
    edit(campaign / "runs" / "same-core-r1" / "meta.json", files=None, checked=None)  # its hash now wrong too
    assert "same-core-r1: content changed" in verify(campaign).stderr


def test_an_edited_campaign_record_spec_or_ledger_is_found(campaign):
    """Issue 58: campaign.json's plan and spec edited, and garbage ledger lines: verify exit 0."""
    record = campaign / "campaign.json"
    kept = record.read_bytes()
    planned = json.loads(kept)["planned_runs"]
    edit(record, planned_runs=planned[:1])
    shown = verify(campaign)
    assert shown.returncode == 3 and "campaign.json: content changed: its SHA-256" in shown.stderr, shown.stderr
    listed = xtalk("list", "--out", campaign.parent)
    assert "content changed" in listed.stdout + listed.stderr, listed.stdout
    record.write_bytes(kept)

    spec = campaign / "spec.toml"
    kept = spec.read_bytes()
    spec.write_bytes(kept + b"[analysis]\nalpha = 0.5\n")
    shown = verify(campaign)
    assert shown.returncode == 3 and "spec.toml: content changed: its hash is" in shown.stderr, shown.stderr
    spec.write_bytes(kept)

    ledger = campaign / "runs.ledger"
    whole = ledger.read_bytes()
    first_garbage = whole.count(b"\n") + 1
    ledger.write_bytes(whole + b"garbage\n" + b'{"run_id": 3}\n' + b'{"run_id": "solo-r1", "att')  # torn last: a kill
    shown = verify(campaign)
    assert shown.returncode == 3, shown.stderr
    assert f"runs.ledger: line {first_garbage} and 1 more: no ledger entry" in shown.stderr, shown.stderr
    report = xtalk("report", "small", "--out", campaign.parent, "--json", "--no-samples")
    assert any(w["scope"] == "runs.ledger" and "the campaign's own file" in w["message"]
               for w in json.loads(report.stdout)["warnings"]), report.stdout
    ledger.write_bytes(whole + b'{"run_id": "solo-r1", "att')
    assert verify(campaign).returncode == 0  # a torn last line only: what a kill midway leaves


def test_a_copy_of_a_runs_directory_as_an_earlier_attempt_is_damaged(campaign):
    """Issue 58: a copied attempt directory was accepted as a second attempt."""
    runs = campaign / "runs"
    shutil.copytree(runs / "solo-r1", runs / "solo-r1.attempt1")
    shown = verify(campaign)
    assert shown.returncode == 3 and "solo-r1: attempt 1 of 'solo-r1', where its directory holds attempt 2" \
        in shown.stderr, shown.stderr


def test_resume_redoes_a_run_changed_in_place(campaign):
    """Issue 58: --resume kept a run whose samples changed but kept their size and mtime."""
    flip_a_byte(campaign / "runs" / "solo-r1" / "samples.parquet")
    res = xtalk("run", campaign / "spec.toml", "--out", campaign.parent, "--resume", "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["skipped_resumed"] == ["same-core-r1"], res.stdout
    assert json.loads((campaign / "runs" / "solo-r1" / "meta.json").read_text())["attempt"] == 2
    assert verify(campaign).returncode == 0  # the damaged attempt kept aside, said as a warning


def test_a_campaign_written_before_records_were_hashed_is_unverifiable(campaign):
    edit(campaign / "campaign.json", schema_version=5, record_sha256=None, checked=None)
    for meta in campaign.glob("runs/*/meta.json"):
        edit(meta, schema_version=5, record_sha256=None, files=None, checked=None)
    shown = verify(campaign)
    assert shown.returncode == 3, shown.stdout + shown.stderr
    assert "small-" in shown.stderr and "unverifiable: 3 record(s) without the hashes to check them by" in shown.stderr
    assert "Traceback" not in shown.stderr
    assert xtalk("show", "small", "--out", campaign.parent).returncode == 0  # read as before, without --verify


def test_resume_beside_a_garbled_ledger_finishes_and_counts_no_campaign_file_as_a_run(campaign):
    """A damaged file of the campaign itself is said by verify and the report, and is no run
    that "did not pass": resume once failed with "1 of 3 runs did not pass: runs.ledger"."""
    ledger = campaign / "runs.ledger"
    ledger.write_bytes(b"garbage\n" + ledger.read_bytes())
    res = xtalk("run", campaign / "spec.toml", "--out", campaign.parent, "--resume", "--json")
    assert res.returncode == 0 and "did not pass" not in res.stderr, res.stderr
    assert sorted(json.loads(res.stdout)["skipped_resumed"]) == ["same-core-r1", "solo-r1"], res.stdout
    assert "runs.ledger: line 1: no ledger entry" in verify(campaign).stderr
