"""Search journals and workers (`xtalk search`, src/xtalk/search/journal.py, workers.py):
a finished search's OUT/search/<name>/journal.log torn, followed by garbage, binary bytes,
a record that is no object, records Optuna did not write; its settings.json garbled or no
object; the journal emptied, deleted, a FIFO or a directory. A damaged tail must be cut
and kept aside and the search resumed (exit 0, one more trial); what cannot be resumed is
refused with one line (exit 2), never "(a bug)". Two workers sharing OUT but not the lock
directory must finish --trials trials together and confirm once; a SIGKILLed search resumes.
"""
from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from harness import OK, USAGE, INFRA, Case, area, kill_only, wait_for

case = area("search_journal")
ARGS = ["--runs", "1", "--confirm-runs", "2", "--duration-s", "0.3", "--stressor", "cache_thrash", "--channel", "l1"]
SPEC = 'name = "s"\ncpus = [0, 1]\n[backend]\nkind = "native"\n[run]\nduration_s = 0.3\n[measurer]\nbench = "qsort"\n' \
       'params = { size_kib = 64 }\n'
BASE: dict = {}
DONE = re.compile(r"^trial \d+: (complete|pruned)", re.M)


def search_spec(c: Case) -> Path:
    path = c.dir / "s.toml"
    path.write_text(SPEC)
    return path


def search(c: Case, trials: int, expect=(OK,), env=None, timeout: float = 120, out: Path | None = None,
           extra: tuple[str, ...] = ()):
    return c.xtalk("search", search_spec(c), "--out", out or c.out, "--trials", trials, *ARGS, *extra, expect=expect,
                   env=env, timeout=timeout)


def trial_dirs(out: Path) -> list[str]:
    return sorted(p.name for p in out.glob("s-search-s-t*a-*"))


def journal_dir(out: Path) -> Path:
    return out / "search" / "s"


def base(c: Case) -> Path:
    """A finished search of 2 trials (made once), copied into this case's OUT."""
    if not BASE:
        out = c.dir / "base-out"
        search(c, 2, out=out)
        BASE["out"] = out
    shutil.copytree(BASE["out"], c.out, symlinks=True)
    return journal_dir(c.out)


def resumed(c: Case, expect=(OK,), said: str = "") -> None:
    """Resume to 3 trials: with exit 0 a third trial must be run; `said` must be printed."""
    before = len(trial_dirs(c.out))
    res = search(c, 3, expect=expect)
    if res.rc == OK:
        c.check(len(trial_dirs(c.out)) == max(before, 2) + 1, "wrong",
                f"trials stored {trial_dirs(c.out)} after resuming {before} to 3")
    if said:
        c.check(said in res.text, "wrong", f"it did not say {said!r}: {res.err.strip()[-300:]}")


def damaged_journal(change, expect=(OK,), said: str = "kept in"):
    def run(c: Case):
        change(base(c) / "journal.log")
        resumed(c, expect, said)
    return run


def append(data: bytes):
    def change(path: Path):
        with path.open("ab") as f:
            f.write(data)
    return change


@case("clean-search-resumes-to-more-trials")
def _(c: Case):
    base(c)
    resumed(c)


case("journal-torn-last-record")(damaged_journal(lambda p: os.truncate(p, p.stat().st_size - 7)))
case("journal-garbage-line-appended")(damaged_journal(append(b"this is not a record\n")))
case("journal-binary-appended")(damaged_journal(append(bytes(range(256)) * 4)))
case("journal-record-that-is-no-object")(damaged_journal(append(b"[1, 2, 3]\n")))
case("journal-unknown-op-code")(damaged_journal(append(b'{"op_code": 99, "worker_id": "x"}\n'), (OK, USAGE), ""))
case("journal-state-for-a-trial-that-never-was")(damaged_journal(append(
    b'{"op_code": 6, "worker_id": "x", "trial_id": 999, "state": 1, "values": [1.0], "datetime_complete": null}\n'),
    (OK, USAGE), ""))


def settings(text: str):
    def run(c: Case):
        (base(c) / "settings.json").write_text(text)
        resumed(c, expect=(USAGE,), said="settings.json")
    return run


case("settings-garbled")(settings('{"name": "s", "runs": '))
case("settings-is-a-list")(settings("[1, 2]"))


@case("journal-emptied-while-trials-are-stored")
def _(c: Case):
    os.truncate(base(c) / "journal.log", 0)
    resumed(c, expect=(USAGE,), said="empty")


@case("journal-deleted-while-trials-are-stored")
def _(c: Case):
    (base(c) / "journal.log").unlink()
    resumed(c, expect=(USAGE,), said="gone")


@case("journal-is-a-fifo")
def _(c: Case):
    journal = base(c) / "journal.log"
    journal.unlink()
    os.mkfifo(journal)
    resumed(c, expect=(USAGE, INFRA))


@case("journal-is-a-directory")
def _(c: Case):
    journal = base(c) / "journal.log"
    journal.unlink()
    journal.mkdir()
    resumed(c, expect=(USAGE, INFRA))


@case("two-workers-share-out-not-the-lock-dir")
def _(c: Case):
    other = c.dir / "locks-b"
    other.mkdir(mode=0o700)
    args = ["search", search_spec(c), "--out", c.out, "--trials", 4, *ARGS]
    first = c.start(*args)
    second = c.start(*args, env=c.env(XTALK_LOCK_DIR=str(other)))
    results = [c.finish(p, expect=(OK,), timeout=180) for p in (first, second)]
    done = sum(len(DONE.findall(r.text)) for r in results)
    confirms = sorted(p.name for p in c.out.glob("s-search-s-confirm-*"))
    c.check(done == 4, "wrong", f"the two workers finished {done} trials for --trials 4")
    c.check(len(confirms) == 1, "wrong", f"{len(confirms)} confirmations: {confirms}")


@case("search-sigkilled-mid-trial-resumes")
def _(c: Case):
    proc = c.start("search", search_spec(c), "--out", c.out, "--trials", 3, *ARGS)
    wait_for(lambda: list(c.out.glob("s-search-s-t0a-*/runs/*/meta.json")), 60)
    kill_only(proc)
    c.finish(proc, expect=(-9,), timeout=5)
    c.orphans(grace_s=5, when="after the search was SIGKILLed")
    res = search(c, 3)
    finished = len(DONE.findall(res.text)) + len(DONE.findall((c.dir / ".cmd0.err").read_text(errors="replace")))
    c.check(res.rc != OK or finished >= 3, "wrong", f"{finished} trials finished for --trials 3 after the resume")
