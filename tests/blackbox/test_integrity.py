"""A stored campaign stays honest, through the real xtalk command on the native backend: a
run's files changed or lost since it ended make it `damaged` (left out, redone by
--resume), a run whose directory is gone is `missing`, an interrupted report leaves the previous one whole, a second Ctrl-C does not
skip a run's teardown, and a SIGKILLed xtalk's ring goes at the next start of any campaign."""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import time
from pathlib import Path

import pytest

from tests.framework.cli import (alive, campaign_dir, guest_pids, run_meta, small, start, started_runs, wait_for,
                                 write_spec, xtalk)
from tests.framework.stored_campaign import stored_copy


@pytest.fixture
def campaign(tmp_path_factory, native_bench, tmp_path) -> Path:
    return stored_copy(tmp_path_factory, tmp_path)


def cells(listed: str) -> str:
    """`xtalk list`'s table as one line of its cells' words (a wrapped cell joined)."""
    return re.sub(r"[│\s]+", " ", listed)


def left_out(shown: str) -> str:
    return " ".join(shown.split("Runs left out of the statistics")[1].split())


def test_a_deleted_events_file_makes_its_run_damaged_and_resume_redoes_it(campaign):
    out, spec = campaign.parent, campaign / "spec.toml"
    (campaign / "runs" / "solo-r1" / "events.jsonl").unlink()
    listed = xtalk("list", "--out", out)
    assert "damaged: solo-r1/events.jsonl: missing" in cells(listed.stdout), listed.stdout + listed.stderr
    shown = xtalk("show", "small", "--out", out)
    assert "solo-r1 │ solo │ damaged │ runs/solo-r1/events.jsonl │ missing" in left_out(shown.stdout), shown.stdout
    assert xtalk("show", "small/solo-r1", "--out", out).returncode == 3
    report = xtalk("report", "small", "--out", out, "--json", "--no-samples")
    warnings = json.loads(report.stdout)["warnings"]
    assert any(w["scope"] == "solo-r1" and w["message"].startswith("damaged: runs/solo-r1/events.jsonl: missing")
               for w in warnings), warnings
    assert all(s["config_id"] != "solo" for s in json.loads(report.stdout)["stats"])  # no run of solo is left

    res = xtalk("run", spec, "--out", out, "--resume", "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["skipped_resumed"] == ["same-core-r1"]
    assert run_meta(out, "solo-r1")["status"] == "pass" and run_meta(out, "solo-r1")["attempt"] == 2
    kept = campaign / "runs" / "solo-r1.attempt1"
    assert (kept / "samples.parquet").is_file() and not (kept / "events.jsonl").exists()  # kept apart, as it was
    assert "1 earlier attempt unreadable, kept" in cells(xtalk("list", "--out", out).stdout)
    verified = xtalk("show", "small", "--out", out, "--verify")  # repaired: the damaged attempt is not used
    assert verified.returncode == 0 and "solo-r1.attempt1: missing" in verified.stderr, verified.stderr
    assert "(an earlier attempt, not used)" in verified.stderr


def test_a_changed_parquet_file_makes_its_run_damaged_and_verify_finds_a_change_that_keeps_mtime(campaign):
    out, runs = campaign.parent, campaign / "runs"
    parquet = runs / "same-core-r1" / "samples.parquet"
    data = bytearray(parquet.read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size, another content
    parquet.write_bytes(bytes(data))
    shown = xtalk("show", "small", "--out", out)
    assert re.search(r"same-core-r1 │ same-core │ damaged │ runs/same-core-r1/samples.parquet │ content changed: "
                     r"SHA-256", left_out(shown.stdout)), shown.stdout

    events = runs / "solo-r1" / "events.jsonl"
    st, text = events.stat(), events.read_text()
    # the last digit changes, so the number stays valid JSON (a first digit 9 -> 0 would lead with a zero)
    events.write_text(re.sub(r'"host_ns": (\d*)(\d)', lambda m: f'"host_ns": {m[1]}{(int(m[2]) + 1) % 10}', text, count=1))
    os.utime(events, ns=(st.st_atime_ns, st.st_mtime_ns))  # a change the size-and-mtime check cannot see
    assert "solo-r1" not in left_out(xtalk("show", "small", "--out", out).stdout)
    verified = xtalk("show", "small", "--out", out, "--verify")
    assert "solo-r1 │ solo │ damaged │ runs/solo-r1/events.jsonl │ content changed" in left_out(verified.stdout), \
        verified.stdout
    assert verified.returncode == 3 and "solo-r1: content changed: SHA-256" in verified.stderr, verified.stderr
    report = xtalk("report", "small", "--out", out, "--json", "--no-samples")  # a report hashes every file
    assert any(w["scope"] == "solo-r1" and "content changed" in w["message"]
               for w in json.loads(report.stdout)["warnings"]), report.stdout


def test_a_run_record_edited_after_the_run_is_damaged(campaign):
    """Issue 43: a run's pressure rate set to 9.99e15 in meta.json (not in its own manifest)
    passed `report` and `show --verify` and reached evidence.json."""
    out, meta = campaign.parent, campaign / "runs" / "same-core-r1" / "meta.json"
    record = json.loads(meta.read_text())
    record["sample_count"] = 999_999  # still a valid record
    meta.write_text(json.dumps(record, indent=2, sort_keys=True))
    shown = xtalk("show", "small", "--out", out, "--verify")
    assert re.search(r"same-core-r1 │ same-core │ damaged │ runs/same-core-r1/meta.json │ content changed: its "
                     r"SHA-256", left_out(shown.stdout)), shown.stdout
    assert shown.returncode == 3, shown.stderr
    assert xtalk("show", "small", "--out", out).returncode == 0  # without --verify: shown, left out, exit 0


def test_a_deleted_run_directory_is_missing_and_resume_redoes_it(campaign):
    """Issue 43: a deleted run directory was "1 not run" and `show --verify` exit 0."""
    out, spec = campaign.parent, campaign / "spec.toml"
    shutil.rmtree(campaign / "runs" / "same-core-r1")
    shown = xtalk("show", "small", "--out", out, "--verify")
    assert "same-core-r1 │ same-core │ missing │ runs/same-core-r1 │ its directory is gone" in left_out(shown.stdout), \
        shown.stdout
    assert "not run" not in shown.stdout.split("Verdict")[0], shown.stdout
    assert shown.returncode == 3 and "same-core-r1: its directory is gone" in shown.stderr, shown.stderr
    res = xtalk("run", spec, "--out", out, "--resume", "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["skipped_resumed"] == ["solo-r1"]
    assert xtalk("show", "small", "--out", out, "--verify").returncode == 0


def test_sigterm_during_a_report_exits_130_and_keeps_the_previous_report(campaign):
    report = campaign / "report"
    before = {p.relative_to(report): p.read_bytes() for p in report.rglob("*") if p.is_file()}
    assert Path("report.json") in before
    proc = start("report", "small", "--out", campaign.parent)
    partial = wait_for(lambda: next(campaign.glob(".report.*.partial"), None), 60, "the report's partial directory")
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 130, proc.stderr.read()
    assert "Traceback" not in proc.stderr.read()
    assert {p.relative_to(report): p.read_bytes() for p in report.rglob("*") if p.is_file()} == before
    assert not partial.exists() and sorted(p.name for p in campaign.iterdir() if p.name.startswith(".")) == []


def test_a_report_refuses_to_replace_a_directory_of_other_files(campaign, tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    res = xtalk("report", "small", "--out", campaign.parent, "--dest", mine, "--no-samples")
    assert res.returncode == 2 and "notes.txt" in res.stderr and "--dest" in res.stderr, res.stderr
    assert (mine / "notes.txt").read_text() == "keep me"


def test_a_second_ctrl_c_during_teardown_does_not_skip_it_and_resume_finishes(tmp_path, native_bench):
    out = tmp_path / "out"
    spec = small(tmp_path, duration=3, iterations=0, placements='["same-core"]')
    proc = start("run", spec, "--out", out)
    wait_for(lambda: guest_pids(out).get("same-core-r1/thrash")
             and run_meta(out, "same-core-r1").get("status") == "running"
             and (campaign_dir(out) / "runs" / "same-core-r1" / "samples.bin").stat().st_size > 0,
             30, "the run to measure")
    proc.send_signal(signal.SIGINT)
    time.sleep(0.02)
    proc.send_signal(signal.SIGINT)  # during the teardown
    time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 130
    pids = guest_pids(out)
    assert pids and not any(alive(p) for p in pids.values()), pids
    assert not list(Path("/dev/shm").glob(f"xtalk-{proc.pid}-*"))
    assert run_meta(out, "same-core-r1")["status"] == "interrupted"
    told = proc.stderr.read().strip().splitlines()[-1]
    assert told.startswith(f"xtalk: interrupted; every guest was stopped and what was measured is stored in campaign "
                           f"{campaign_dir(out).name} ({campaign_dir(out)}); continue it with: xtalk run "), told
    command = shlex.split(told.split("continue it with: ", 1)[1])
    assert command == ["xtalk", "run", str(spec), "--resume", "--out", str(out)], told
    res = xtalk(*command[1:], "--json")  # the command as told
    assert res.returncode == 0 and json.loads(res.stdout)["passed"] == 1, res.stderr
    assert run_meta(out, "same-core-r1")["attempt"] == 2


def test_a_sigkilled_runs_ring_is_removed_when_another_campaign_starts(tmp_path, native_bench):
    out = tmp_path / "out"
    proc = start("run", small(tmp_path, duration=5, iterations=0, placements='["solo"]'), "--out", out)
    ring = wait_for(lambda: next(Path("/dev/shm").glob(f"xtalk-{proc.pid}-*"), None), 30, "the run's ring")
    wait_for(lambda: "solo-r1" in started_runs(out), 30, "the run to start")
    proc.kill()
    proc.wait(timeout=10)
    assert ring.exists()
    other = write_spec(tmp_path, small(tmp_path, duration=1, placements='["solo"]').read_text()
                       .replace('name = "small"', 'name = "other"'), "other.toml")
    res = xtalk("run", other, "--out", tmp_path / "other")
    assert res.returncode == 0, res.stderr
    assert not ring.exists()
