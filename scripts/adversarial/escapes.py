"""Terminal escapes: ESC sequences and 8-bit CSI (U+009B) planted where xtalk prints what
it did not write itself: spec file names, spec values and keys, --set values, campaign
names asked for, --out paths, cached tool versions, a lease holder's record, a capture
program's stderr, an imported log's name, a search --name. Output goes to pipes with
TERM=dumb, so any raw control character (other than newline and tab) that reaches stdout
or stderr is one a terminal would act on (harness.control_chars). The first case shows
that a clean campaign prints none.
"""
from __future__ import annotations

import json
import os

from harness import INFRA, OK, USAGE, Case, area, python, spec, wait_for
from process_trees import capture_spec

case = area("escapes")
EVIL = "\x1b]0;pwned\x07\x1b[2J\x9b31m\x1b[5m"
EVIL_NAME = "evil\x1b[31m\x9b2J\x07"


@case("clean-campaign-prints-no-control-characters")
def _(c: Case):
    c.xtalk("run", spec(c), "--out", c.out, "--report", expect=(OK,))
    c.xtalk("list", "--out", c.out, expect=(OK,))
    c.xtalk("show", "probe", "--out", c.out, expect=(OK,))
    c.xtalk("show", "probe/solo-r1", "--out", c.out, expect=(OK,))


@case("missing-spec-file-named-with-escapes")
def _(c: Case):
    c.xtalk("run", c.dir / f"{EVIL_NAME}.toml", "--out", c.out, expect=(USAGE,))


@case("bad-spec-file-named-with-escapes")
def _(c: Case):
    path = c.dir / f"{EVIL_NAME}.toml"
    path.write_text('name = "x"\ncpus = [0]\n[measurer]\nbench = "nope"\n')
    c.xtalk("spec", "check", path, expect=(USAGE,))


@case("spec-key-and-value-with-escapes")
def _(c: Case):
    path = spec(c, extra=f"\n[paired]\n{json.dumps(EVIL)} = {json.dumps(EVIL)}\n")
    c.xtalk("run", path, "--out", c.out, expect=(USAGE,))
    text = path.read_text().replace('name = "probe"', f'name = "probe"\ndescription = {json.dumps(EVIL)}')
    path.write_text(text.split("\n[paired]")[0])
    c.xtalk("run", path, "--out", c.out, expect=(OK,))
    c.xtalk("show", "probe", "--out", c.out, expect=(OK,))


@case("set-value-with-escapes")
def _(c: Case):
    c.xtalk("run", spec(c), "--out", c.out, "--set", f"measurer.bench={json.dumps(EVIL)}", expect=(USAGE,))


@case("show-a-campaign-named-with-escapes")
def _(c: Case):
    c.out.mkdir()
    c.xtalk("show", EVIL_NAME, "--out", c.out, expect=(USAGE, INFRA))


@case("out-path-with-escapes")
def _(c: Case):
    out = c.dir / f"out-{EVIL_NAME}"
    c.xtalk("run", spec(c, placements=("solo",)), "--out", out, expect=(OK,))
    c.xtalk("list", "--out", out, expect=(OK,))


@case("cached-tool-versions-with-escapes")
def _(c: Case):
    c.xtalk("host", "show", expect=(OK,))
    kept = c.cache / "tool-versions.json"
    if not c.check(kept.is_file(), "wrong", "no tool-versions.json kept after `host show`"):
        return
    kept.write_text(json.dumps({k: f"QEMU emulator version 9.9{EVIL}" for k in json.loads(kept.read_text())}))
    c.xtalk("host", "show", expect=(OK,))
    c.xtalk("run", spec(c, placements=("solo",)), "--out", c.out, expect=(OK,))
    c.xtalk("show", "probe", "--out", c.out, expect=(OK,))


@case("lease-holder-record-with-escapes")
def _(c: Case):
    lock = c.locks / "cpu0.lock"
    holder = c.start(program=[python(), "-c", "import fcntl, os, sys, time\n"
                              "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)\n"
                              "fcntl.flock(fd, fcntl.LOCK_EX)\n"
                              "os.write(fd, sys.argv[2].encode())\n"
                              "time.sleep(120)\n", str(lock),
                              json.dumps({"pid": os.getpid(), "campaign": EVIL, "where": EVIL})])
    c.cleanups.append(holder.kill)
    wait_for(lambda: lock.exists() and lock.stat().st_size > 0, 10)
    c.xtalk("run", spec(c), "--out", c.out, expect=(USAGE,))


@case("capture-program-stderr-with-escapes")
def _(c: Case):
    script = f"printf %s {json.dumps(EVIL)} >&2; echo; printf %s {json.dumps(EVIL)}; exit 4"
    c.xtalk("run", capture_spec(c, ["bash", "-c", script]), "--out", c.out, expect=(INFRA,))
    c.xtalk("show", "probe/solo-r1", "--out", c.out, expect=(OK, INFRA))


@case("imported-log-named-with-escapes")
def _(c: Case):
    path = c.dir / f"log{EVIL_NAME}\n.log"
    path.write_text("lat: 1\nlat: 2\n")
    c.xtalk("import", "imp", "--output", "regex", "--parser", r"sample='lat: (?P<value>\d+)'", "--parser",
            'metric="lat"', "--out", c.out, path, expect=(OK,))
    c.xtalk("show", "imp", "--out", c.out, expect=(OK,))


@case("search-name-with-escapes")
def _(c: Case):
    c.xtalk("search", spec(c, stressor=None), "--out", c.out, "--name", EVIL_NAME, "--trials", 1, expect=(USAGE,))


def evil_import(c: Case):
    """A campaign imported from a log whose file name carries escapes (issue 58): (out, campaign name)."""
    path = c.dir / f"log{EVIL_NAME}.log"
    path.write_text("lat: 1\nlat: 2\n")
    c.xtalk("import", "imp", "--output", "regex", "--parser", r"sample='lat: (?P<value>\d+)'", "--parser",
            'metric="lat"', "--out", c.out, path, expect=(OK,))
    return [p.name for p in c.out.iterdir() if (p / "campaign.json").is_file()]


@case("show-run-header-of-an-imported-log-named-with-escapes")
def _(c: Case):
    for name in evil_import(c):
        for run in (c.out / name / "runs").iterdir():
            c.xtalk("show", f"{name}/{run.name}", "--out", c.out, expect=(OK,))


@case("query-csv-of-values-with-escapes-newlines-and-commas")
def _(c: Case):
    for name in evil_import(c):
        sql = ("SELECT 'a' || chr(27) || '[2J' || chr(10) || 'b,c' || chr(13) || chr(155) AS x, run_id FROM runs")
        res = c.xtalk("query", name, sql, "--out", c.out, "--csv", expect=(OK,))
        lines = res.out.splitlines()
        c.check(len(lines) == 2 and lines[1].startswith('"a'), "control bytes",
                f"a value with a newline made {len(lines)} CSV lines: {lines[:3]}")
