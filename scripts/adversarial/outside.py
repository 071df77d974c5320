"""Writes that could leave their directory (issue 58): a name with ../.. (a search --name,
an import's campaign name, a worker job's run id) and a link in place of a file xtalk
writes (a search journal that is a symlink or a hard link to an outside file, healed of a
torn tail; a dangling link in place of a search's settings; a lease file hard-linked to
another file; a campaign's report directory made a link to elsewhere). Each outside file
must keep its bytes ("links followed" else), nothing may appear outside the case's OUT
("writes outside" else), and a refusal names what it refused ("unclear errors" else).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from harness import INFRA, OK, USAGE, XTALK, Case, area, spec
from search_journal import base as finished_search
from search_journal import journal_dir, search
from store import only_campaign

case = area("outside")
TORN = b'{"op_code": 4, "worker_id": "a", "trial'


def outside_file(c: Case, name: str = "outside.txt", data: bytes = b"a file of someone else's\n") -> Path:
    path = c.dir / name
    path.write_bytes(data)
    return path


def kept(c: Case, path: Path, data: bytes) -> None:
    c.check(path.read_bytes() == data, "links followed",
            f"{path} changed through a link: {path.read_bytes()[:80]!r} (was {data[:80]!r})")


def nothing_at(c: Case, *paths: Path) -> None:
    for path in paths:
        c.check(not os.path.lexists(path), "writes outside", f"{path} was written outside its directory")


@case("search-name-with-dotdot")
def _(c: Case):
    res = search(c, 1, expect=(USAGE,), extra=("--name", "../../escaped"))
    nothing_at(c, c.dir / "escaped", c.out / "escaped")
    c.says(res, "--name")


@case("import-campaign-named-with-dotdot")
def _(c: Case):
    log = outside_file(c, "lat.log", b"lat: 1\nlat: 2\n")
    res = c.xtalk("import", "../escaped", "--output", "regex", "--parser", r"sample='lat: (?P<value>\d+)'",
                  "--parser", 'metric="lat"', "--out", c.out, log, expect=(USAGE,))
    nothing_at(c, c.dir / "escaped")
    c.check(not list(c.dir.glob("escaped*")), "writes outside", f"{list(c.dir.glob('escaped*'))} written")
    c.says(res, "../escaped")


def linked_journal(link):
    def run(c: Case):
        journal = finished_search(c) / "journal.log"
        data = journal.read_bytes() + TORN  # a torn tail: healing cuts the file back to its last record
        target = outside_file(c, data=data)
        journal.unlink()
        link(target, journal)
        res = search(c, 3, expect=(USAGE,))
        kept(c, target, data)
        c.says(res, "journal.log")
    return run


case("search-journal-symlinked-out-with-a-torn-tail")(linked_journal(os.symlink))
case("search-journal-hard-linked-out-with-a-torn-tail")(linked_journal(os.link))


@case("search-settings-a-dangling-link")
def _(c: Case):
    planted = c.dir / "planted-settings.json"
    journal_dir(c.out).mkdir(parents=True)
    (journal_dir(c.out) / "settings.json").symlink_to(planted)
    search(c, 1, expect=(OK,))
    nothing_at(c, planted)
    settings = journal_dir(c.out) / "settings.json"
    c.check(settings.is_file() and not settings.is_symlink(), "wrong", "no settings.json of its own written")


@case("worker-job-run-id-out-of-its-directory")
def _(c: Case):
    job = {"spec": spec(c).read_text(), "overrides": [], "values": {}, "run_id": "solo-r1", "attempt": 1,
           "as": {"run_id": "../../escaped", "config_id": "solo", "config": {"placement": "solo"}}}
    tmp = c.dir / "tmp"
    tmp.mkdir()
    res = c.xtalk(json.dumps(job), program=["bash", "-c", 'printf "%s\\n" "$1" | "$0" worker', str(XTALK)],
                  env=c.env(TMPDIR=str(tmp)), expect=(USAGE,))
    found = [p for p in c.dir.rglob("escaped*")]
    c.check(not found, "writes outside", f"the worker wrote {found}")
    c.says(res, "as.run_id")


@case("lease-file-hard-linked-to-another-file")
def _(c: Case):
    data = b"another file's bytes\n"
    target = outside_file(c, data=data)
    os.link(target, c.locks / "cpu0.lock")
    res = c.xtalk("run", spec(c), "--out", c.out, expect=(USAGE,), timeout=60)
    kept(c, target, data)
    c.says(res, "hard link")


@case("report-directory-a-link-out-of-the-campaign")
def _(c: Case):
    c.xtalk("run", spec(c, placements=("solo",)), "--out", c.out, expect=(OK,))
    campaign = only_campaign(c.out)
    elsewhere = c.dir / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "mine.txt").write_text("mine\n")
    report = campaign / "report"
    if report.exists():
        os.rename(report, c.dir / "old-report")
    report.symlink_to(elsewhere, target_is_directory=True)
    c.xtalk("report", campaign, "--no-plots", expect=(OK, USAGE, INFRA))
    c.check(sorted(p.name for p in elsewhere.iterdir()) == ["mine.txt"] and
            (elsewhere / "mine.txt").read_text() == "mine\n", "links followed",
            f"the report wrote through its directory's link: {sorted(p.name for p in elsewhere.iterdir())}")
