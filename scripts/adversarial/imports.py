"""Imports (`xtalk import`, src/xtalk/importer.py, src/xtalk/parsers/regex.py): logs and
patterns that never end or cost without bound. A FIFO (no writer; a writer that never
closes), /dev/zero directly and through a symlink, a 98 MB line, a sparse 2 GiB log, a
directory, a symlink loop, binary bytes, an empty or missing log; a catastrophic pattern
((a+)+$ against a 33-character line), a backreference, a huge repetition, a broken
pattern; ANSI-coloured lines, a 26-digit value; --append to a campaign whose campaign.json
is garbled. Each must end within seconds: refused with one line (exit 2), nothing stored,
or imported (exit 0); never a traceback.
"""
from __future__ import annotations

import os
from pathlib import Path

from harness import INFRA, OK, USAGE, Case, area
from store import campaigns

case = area("imports")
GOOD = "boot\nlat: 120\nlat: 130\nlat: 125\n"
LAT = ["--parser", r"sample='lat: (?P<value>\d+)'", "--parser", 'metric="lat"']


def imp(c: Case, *logs, parser=LAT, expect=(USAGE,), timeout: float = 30, extra=()):
    res = c.xtalk("import", "imp", "--output", "regex", *parser, *extra, "--out", c.out, *logs, expect=expect,
                  timeout=timeout)
    if res.rc == USAGE:
        c.check(not campaigns(c.out), "wrong", f"a refused import stored {[p.name for p in campaigns(c.out)]}")
    return res


def log(c: Case, text: str | bytes, name: str = "run.log") -> Path:
    path = c.dir / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def refused(make, words: str = "", expect=(USAGE,), timeout: float = 30):
    def run(c: Case):
        res = imp(c, make(c), expect=expect, timeout=timeout)
        if words:
            c.check(words in res.err, "wrong", f"the refusal does not say {words!r}: {res.err[:300]}")
    return run


def fifo(c: Case) -> Path:
    path = c.dir / "fifo.log"
    os.mkfifo(path)
    return path


def symlink(target: str, name: str = "link.log"):
    def make(c: Case) -> Path:
        (c.dir / name).symlink_to(target)
        return c.dir / name
    return make


@case("clean-import")
def _(c: Case):
    res = imp(c, log(c, GOOD), expect=(OK,))
    c.check("3 samples" in res.text, "wrong", f"3 samples not read: {res.out[:200]}")


case("fifo-with-no-writer")(refused(fifo, "FIFO"))


@case("fifo-with-a-writer-that-never-closes")
def _(c: Case):
    path = fifo(c)
    writer = c.start(program=["bash", "-c", f"exec 3>{path}; while :; do echo 'lat: 1' >&3; sleep 0.2; done"])
    c.cleanups.append(writer.kill)
    imp(c, path)


case("dev-zero-directly")(refused(lambda c: Path("/dev/zero"), "device"))
case("dev-zero-through-a-symlink")(refused(symlink("/dev/zero"), "device"))
case("directory-as-a-log")(refused(lambda c: c.dir, "directory"))
case("symlink-loop")(refused(lambda c: (os.symlink("loop.log", c.dir / "loop.log"), c.dir / "loop.log")[1]))
case("missing-log")(refused(lambda c: c.dir / "missing.log", "missing.log"))
case("empty-log")(refused(lambda c: log(c, "")))
case("binary-log")(refused(lambda c: log(c, bytes(range(256)) * 64), "binary"))
case("98mb-line")(refused(lambda c: log(c, GOOD + "x" * (98 << 20) + "\n"), "longer than", timeout=60))


@case("sparse-2gib-log")
def _(c: Case):
    path = log(c, GOOD)
    os.truncate(path, 2 << 30)
    imp(c, path)


def pattern(sample: str, expect=(USAGE,), text: str = GOOD, timeout: float = 20):
    def run(c: Case):
        imp(c, log(c, text), parser=["--parser", f"sample='{sample}'", "--parser", 'metric="lat"'], expect=expect,
            timeout=timeout)
    return run


case("catastrophic-regex-33-characters")(pattern(r"v=(?P<value>\d+)(a+)+$", (OK, USAGE),
                                                 "v=1" + "a" * 30 + "!\n" + "v=2" + "a" * 30 + "\n"))
case("backreference-regex")(pattern(r"lat: (?P<value>\d+)\1"))
case("huge-repetition-regex")(pattern(r"(?P<value>(\d{1000}){1000})", (USAGE, OK)))
case("broken-regex")(pattern(r"lat: (?P<value>\d+"))
case("26-digit-value")(pattern(r"lat: (?P<value>\d+)", (OK, USAGE), "lat: 12345678901234567890123456\nlat: 1\n"))


@case("ansi-coloured-log")
def _(c: Case):
    res = imp(c, log(c, "\x1b[32mlat: 120\x1b[0m\n\x1b[1mlat: 130\x1b[0m\nlat: \x1b[31m125\x1b[0m\n"), expect=(OK,))
    c.check("2 samples" in res.text or "3 samples" in res.text, "wrong", f"coloured samples not read: {res.out[:200]}")


@case("append-to-a-campaign-with-garbled-campaign-json")
def _(c: Case):
    imp(c, log(c, GOOD), expect=(OK,))
    (stored,) = campaigns(c.out) or [None]
    (stored / "campaign.json").write_text('{"name": "imp", ')
    imp(c, log(c, GOOD, "second.log"), expect=(USAGE, INFRA), extra=["--append", "--config", "placement=same-core"])
    c.check((stored / "campaign.json").read_text() == '{"name": "imp", ', "data lost",
            "the garbled campaign.json was overwritten by --append")
