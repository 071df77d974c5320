"""Known-answer tests judge what xtalk says on the machine they run on (issue 57). Where xtalk
itself finds that this machine cannot answer for a metric (its machine line: other work on
the measured CPUs, the host's own stolen time, the reference's spread; `host caches`' and
`calibrate`'s own words), the right answer here is that xtalk says so, with its numbers: the
test asserts that and records itself as voided by the machine (`voided`), printed and kept in
the tier's record (scripts/test-tier.sh counts them on the gate's last line). Where xtalk
says it can answer, the test asserts the truth as before. Never a skip, never a retry.
The tier's record is a directory named by XTALK_TEST_RECORD (test-tier.sh makes one); without
it (a lone pytest), voided tests are printed only.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

from xtalk.analysis.measurability import cannot_answer

RECORD_ENV = "XTALK_TEST_RECORD"
VOIDED = "voided.jsonl"


def record(kind: str, entry: dict) -> None:
    """One JSON line in the tier's record file `kind` (one write: xdist workers append alike)."""
    base = os.environ.get(RECORD_ENV)
    if not base:
        return
    line = (json.dumps(entry, sort_keys=True) + "\n").encode()
    fd = os.open(Path(base) / kind, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


def recorded(kind: str) -> list[dict]:
    """The tier's record file `kind`, read back ([] without a record)."""
    base = os.environ.get(RECORD_ENV)
    path = Path(base) / kind if base else None
    if path is None or not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def voided(why: str) -> None:
    """This known-answer test is voided by the machine: xtalk said it cannot answer (`why`, with
    its numbers, is what it said)."""
    assert re.search(r"\d", why), f"xtalk's 'cannot answer' carries no number: {why!r}"
    test = os.environ.get("PYTEST_CURRENT_TEST", "?").rsplit(" (", 1)[0]
    print(f"known answer voided by the machine: {test}: {why}")
    record(VOIDED, {"test": test, "why": why})


def machine_voids(measurability: dict, metric: str | None) -> str | None:
    """The machine line's text where it says this machine cannot answer for `metric`, else None."""
    return measurability.get("text") if cannot_answer(measurability, metric) else None
