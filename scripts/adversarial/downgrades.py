"""Integrity a downgrade or an unhashed field could argue away (issue 58): a run's meta.json
that claims an older format, without its hash and manifest, with its samples changed; a run
changed in place (size and mtime kept) that --resume must redo; campaign.json's plan and
spec.toml edited; garbage lines in the middle of runs.ledger; a copy of a run's directory
as an earlier attempt; a whole campaign rewritten as of a format before hashes. Each must
be found: `show --verify` exits 3 naming it, or says "unverifiable"; else "changes
undetected" is scored.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from harness import INFRA, OK, Case, area
from integrity import RUN, base, run_file
from store import damage_found, flip_byte, with_mtime

case = area("downgrades")
UNDETECTED = "changes undetected"


def edited(path: Path, **fields) -> None:
    """The record's fields changed (None: taken out), its mtime kept."""
    def change(p: Path):
        record = json.loads(p.read_text())
        for key, value in fields.items():
            if value is None:
                record.pop(key, None)
            else:
                record[key] = value
        p.write_text(json.dumps(record, indent=1))
    with_mtime(path, change)


def verify_finds(c: Case, campaign: Path, *words: str) -> None:
    res = c.xtalk("show", campaign, "--verify", expect=(INFRA,))
    missing = [w for w in words if w not in res.err]
    c.check(res.rc == INFRA and not missing, UNDETECTED, f"`show --verify` exit {res.rc}, not saying {missing}: "
            f"{res.err.strip()[:300]}")


@case("run-claims-an-older-format-without-hashes-samples-changed")
def _(c: Case):
    campaign = base(c)
    with_mtime(run_file(campaign, "samples.parquet"), flip_byte)
    edited(run_file(campaign, "meta.json"), schema_version=5, record_sha256=None, files=None, checked=None)
    damage_found(c, campaign, RUN, column=UNDETECTED)


@case("run-record-without-its-hash")
def _(c: Case):
    campaign = base(c)
    edited(run_file(campaign, "meta.json"), record_sha256=None, checked=None)
    verify_finds(c, campaign, RUN, "no record_sha256")


@case("resume-of-a-run-changed-in-place")
def _(c: Case):
    campaign = base(c)
    with_mtime(run_file(campaign, "samples.parquet"), flip_byte)
    c.xtalk("run", campaign / "spec.toml", "--out", c.out, "--resume", expect=(OK,), timeout=90)
    attempt = json.loads(run_file(campaign, "meta.json").read_text()).get("attempt")
    c.check(attempt == 2, UNDETECTED, f"--resume kept {RUN} changed in place (attempt {attempt}, not redone)")


@case("campaign-plan-edited")
def _(c: Case):
    campaign = base(c)
    record = json.loads((campaign / "campaign.json").read_text())
    edited(campaign / "campaign.json", planned_runs=record["planned_runs"][:1])
    verify_finds(c, campaign, "campaign.json", "content changed")


@case("campaign-spec-edited")
def _(c: Case):
    campaign = base(c)
    with_mtime(campaign / "spec.toml", lambda p: p.write_text(p.read_text() + "[analysis]\nalpha = 0.5\n"))
    verify_finds(c, campaign, "spec.toml", "content changed")


@case("ledger-garbage-in-the-middle")
def _(c: Case):
    campaign = base(c)
    ledger = campaign / "runs.ledger"
    lines = ledger.read_bytes().splitlines(keepends=True)
    ledger.write_bytes(b"".join(lines[:1]) + b"garbage\n" + b'{"run_id": 3}\n' + b"".join(lines[1:]))
    verify_finds(c, campaign, "runs.ledger", "line 2")


@case("a-runs-directory-copied-as-an-earlier-attempt")
def _(c: Case):
    campaign = base(c)
    shutil.copytree(campaign / "runs" / RUN, campaign / "runs" / f"{RUN}.attempt1")
    verify_finds(c, campaign, f"{RUN}: attempt 1 of")


@case("a-whole-campaign-rewritten-as-unhashed")
def _(c: Case):
    campaign = base(c)
    edited(campaign / "campaign.json", schema_version=5, record_sha256=None, checked=None)
    for meta in campaign.glob("runs/*/meta.json"):
        edited(meta, schema_version=5, record_sha256=None, files=None, checked=None)
    verify_finds(c, campaign, "unverifiable")
