"""Integrity of stored runs (meta.json's manifest and record_sha256, runs.ledger;
README "Results"): a finished campaign's files edited, truncated, deleted or swapped after
the fact. meta.json with a pressure rate of 9.99e15 or another sample_count, samples.bin,
samples.parquet, events.jsonl or a console log changed at the same size with the mtime
given back, a run directory or its parquet deleted, meta.json torn or a directory, another
run's directory put in a run's place, campaign.json or runs.ledger garbled. Each must be
found: `show --verify` exits 3 naming the run, the report's warnings name it (and leave
it out), a resume redoes it; an unreadable campaign is one line and exit 3, never a traceback.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from harness import INFRA, OK, Case, area, spec
from store import check_complete, copy_campaign, damage_found, flip_byte, only_campaign, with_mtime

case = area("integrity")
BASE: dict = {}
RUN = "other-core-r1"


def base(c: Case) -> Path:
    """A finished campaign (solo and other-core next to memcpy, made once), copied for this case."""
    if not BASE:
        out = c.dir / "base-out"
        path = spec(c, name="integ", placements=("solo", "other-core"), stressor="memcpy")
        c.xtalk("run", path, "--out", out, expect=(OK,))
        BASE["campaign"] = only_campaign(out)
    return copy_campaign(BASE["campaign"], c.out)


def run_file(campaign: Path, name: str, run: str = RUN) -> Path:
    return campaign / "runs" / run / name


def edited_meta(change):
    def run(c: Case):
        campaign = base(c)
        meta = run_file(campaign, "meta.json")
        record = json.loads(meta.read_text())
        change(record)
        with_mtime(meta, lambda p: p.write_text(json.dumps(record, indent=1)))
        damage_found(c, campaign, RUN)
    return run


def set_pressure(record: dict) -> None:
    found = [p for p in record.get("pressure", {}).values() if isinstance(p, dict) and "rate" in p]
    for p in found:
        p["rate"] = 9.99e15
    if not found:
        raise RuntimeError(f"no pressure rate in the base run to edit: {record.get('pressure')}")


case("meta-pressure-rate-set-to-9.99e15")(edited_meta(set_pressure))
case("meta-sample-count-edited")(edited_meta(lambda r: r.update(sample_count=r["sample_count"] * 3 + 1)))
case("meta-reason-edited-mtime-kept")(edited_meta(lambda r: r.update(reason="edited: was a failure")))


def same_size_edit(name: str, at: float = 0.5):
    def run(c: Case):
        campaign = base(c)
        with_mtime(run_file(campaign, name), lambda p: flip_byte(p, at))
        damage_found(c, campaign, RUN)
    return run


case("samples-bin-same-size-mtime-kept")(same_size_edit("samples.bin", 0.6))
case("samples-parquet-same-size-mtime-kept")(same_size_edit("samples.parquet", 0.5))
case("events-jsonl-same-size-mtime-kept")(same_size_edit("events.jsonl", 0.98))
case("console-log-same-size-mtime-kept")(same_size_edit("console/measurer.log", 0.5))


@case("samples-bin-truncated")
def _(c: Case):
    campaign = base(c)
    path = run_file(campaign, "samples.bin")
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    damage_found(c, campaign, RUN)


def gone_then_resumed(remove, words: str):
    def run(c: Case):
        campaign = base(c)
        remove(campaign / "runs" / RUN)
        verified = c.xtalk("show", campaign, "--verify", expect=(INFRA,))
        c.check(RUN in verified.err, "wrong", f"`show --verify` did not name {RUN}: {verified.err[-300:]}")
        c.check(words in verified.text, "wrong", f"`show --verify` did not say {words!r}")
        c.xtalk("run", campaign / "spec.toml", "--out", c.out, "--resume", expect=(OK,), timeout=90)
        check_complete(c, campaign, {"solo-r1": 1})
    return run


case("run-directory-deleted")(gone_then_resumed(shutil.rmtree, "gone"))
case("samples-parquet-deleted")(gone_then_resumed(lambda d: (d / "samples.parquet").unlink(), "missing"))
case("meta-json-torn")(gone_then_resumed(lambda d: (d / "meta.json").write_text('{"run_id": "other-'), RUN))
case("meta-json-is-a-directory")(gone_then_resumed(
    lambda d: ((d / "meta.json").unlink(), (d / "meta.json").mkdir()), RUN))


@case("another-runs-directory-in-its-place")
def _(c: Case):
    campaign = base(c)
    shutil.rmtree(campaign / "runs" / RUN)
    shutil.copytree(campaign / "runs" / "solo-r1", campaign / "runs" / RUN)
    damage_found(c, campaign, RUN)


@case("campaign-json-garbled")
def _(c: Case):
    campaign = base(c)
    (campaign / "campaign.json").write_text('{"name": "integ", "planned_runs": [')
    c.xtalk("list", "--out", c.out, expect=(OK,))
    res = c.xtalk("show", campaign, expect=(INFRA,))
    c.check(len([line for line in res.err.splitlines() if line.strip()]) <= 3, "wrong",
            f"an unreadable campaign took more than one error line: {res.err[:300]}")
    c.xtalk("report", campaign, "--no-samples", expect=(INFRA,))


@case("runs-ledger-garbled")
def _(c: Case):
    campaign = base(c)
    (campaign / "runs.ledger").write_bytes(b"\x00\xffnot a ledger\n{\"run_id\": 5}\n")
    said = c.xtalk("show", campaign, "--verify", expect=(INFRA,))  # issue 58: once ignored silently
    c.check("runs.ledger" in said.err, "changes undetected", f"verify did not name runs.ledger: {said.err[:300]}")
    c.xtalk("run", campaign / "spec.toml", "--out", c.out, "--resume", expect=(OK,), timeout=90)
    check_complete(c, campaign, {"solo-r1": 1, RUN: 1}, verify=(INFRA,))  # its runs whole; the ledger stays damaged
