"""Kept facts (src/xtalk/cache.py, src/xtalk/backends/tsc.py): the cache files xtalk keeps
from one command to the next lie or are not files. The kept TSC frequency set to 1e9,
-5, true, 1e29, 1, a string, NaN, a number 10 % or 1.5 % off (issue 58) or a huge integer must never convert a
sample (each run's freq_hz within 0.1 % of a clean run's: backends/tsc.py says why) nor fail or hang a run; tsc-hz.json
as a directory, a symlink to /dev/zero, a FIFO or megabytes of binary, tool-versions.json
as a directory or holding a 2 MB version, and a cache directory that is a file or cannot be
made cost only the fact's measurement (exit 0).
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from harness import OK, Case, area, spec

case = area("kept_facts")
TSC, VERSIONS = "tsc-hz.json", "tool-versions.json"
REF: dict = {}
AGREE = 0.001  # how close a run's frequency must be to a clean run's (backends/tsc.py's AGREE)


def one_run(c: Case, env: dict | None = None, timeout: float = 60):
    return c.xtalk("run", spec(c, placements=("solo",)), "--out", c.out, expect=(OK,), timeout=timeout, env=env)


def freqs(out: Path) -> list[float]:
    return [json.loads(m.read_text()).get("freq_hz") or 0 for m in out.glob("*/runs/*/meta.json")]


def reference(c: Case) -> dict:
    """A clean run's cache files and frequency (made once, by the first case that needs it)."""
    if not REF:
        cache = c.dir / "reference-cache"
        out = c.dir / "reference-out"
        c.xtalk("run", spec(c, placements=("solo",), file="reference.toml"), "--out", out,
                env=c.env(XTALK_CACHE=str(cache)), expect=(OK,))
        REF.update(cache=cache, hz=(freqs(out) or [0])[0])
    return REF


def seeded(c: Case, name: str, change) -> None:
    """This case's cache: the reference's, with `change(path)` applied to the file `name`."""
    ref = reference(c)
    shutil.copytree(ref["cache"], c.cache)
    change(c.cache / name)


def lying_tsc(value_text) -> callable:
    """Every kept frequency replaced by the JSON text `value_text` (a function of the true one)."""
    def change(path: Path):
        kept = json.loads(path.read_text())
        path.write_text("{" + ", ".join(f"{json.dumps(k)}: {value_text(v)}" for k, v in kept.items()) + "}")
    return change


def tsc_case(value_text):
    def run(c: Case):
        seeded(c, TSC, lying_tsc(value_text))
        one_run(c)
        hz = REF["hz"]
        got = freqs(c.out)
        c.check(bool(got) and all(abs(f / hz - 1) < AGREE for f in got), "wrong",
                f"runs converted with freq_hz {got} (a clean run: {hz:.0f})")
        kept = json.loads((c.cache / TSC).read_text()) if (c.cache / TSC).is_file() else {}
        c.check(all(isinstance(v, int) and abs(v / hz - 1) < AGREE for v in kept.values()), "wrong",
                f"{TSC} still holds {list(kept.values())[:2]} after the run")
    return run


@case("clean-run-keeps-a-true-tsc")
def _(c: Case):
    ref = reference(c)
    bogo = [float(line.split(":")[1]) for line in open("/proc/cpuinfo") if line.startswith("bogomips")]
    c.check(ref["hz"] > 0 and (not bogo or abs(ref["hz"] / (bogo[0] / 2 * 1e6) - 1) < AGREE), "wrong",
            f"a clean run's freq_hz {ref['hz']} is not the kernel's {bogo[:1]} bogomips / 2")


for label, text in [("1e9", lambda v: "1000000000"), ("minus-5", lambda v: "-5"), ("true", lambda v: "true"),
                    ("1e29", lambda v: "1e29"), ("one", lambda v: "1"), ("string", lambda v: json.dumps(str(v))),
                    ("nan", lambda v: "NaN"), ("10pct-off", lambda v: str(int(v * 1.1))),
                    ("1.5pct-high", lambda v: str(int(v * 1.015))),
                    ("huge-int", lambda v: "9" * 400)]:
    case(f"kept-tsc-{label}")(tsc_case(text))


def replaced_by(make):
    def change(path: Path):
        path.unlink(missing_ok=True)
        make(path)
    return change


@case("tsc-cache-is-a-directory")
def _(c: Case):
    seeded(c, TSC, replaced_by(lambda p: (p / "inside").mkdir(parents=True)))
    one_run(c)


@case("tsc-cache-is-a-symlink-to-dev-zero")
def _(c: Case):
    seeded(c, TSC, replaced_by(lambda p: p.symlink_to("/dev/zero")))
    one_run(c)
    c.check(Path("/dev/zero").is_char_device(), "data lost", "/dev/zero was replaced")


@case("tsc-cache-is-a-fifo")
def _(c: Case):
    seeded(c, TSC, replaced_by(os.mkfifo))
    one_run(c)


@case("tsc-cache-is-5mb-of-binary")
def _(c: Case):
    seeded(c, TSC, replaced_by(lambda p: p.write_bytes(os.urandom(5 << 20))))
    one_run(c)


@case("versions-cache-is-a-directory")
def _(c: Case):
    seeded(c, VERSIONS, replaced_by(lambda p: (p / "inside").mkdir(parents=True)))
    one_run(c)
    c.xtalk("host", "show", expect=(OK,))


@case("versions-cache-holds-a-2mb-version")
def _(c: Case):
    def huge(path: Path):
        kept = json.loads(path.read_text())
        path.write_text(json.dumps({k: "QEMU emulator version " + "9" * (2 << 20) for k in kept}))
    seeded(c, VERSIONS, huge)
    res = c.xtalk("host", "show", expect=(OK,))
    c.check(len(res.out) < 200_000, "wrong", f"`host show` printed {len(res.out)} characters of a kept version")


@case("cache-dir-is-a-regular-file")
def _(c: Case):
    path = c.dir / "cache-file"
    path.write_text("not a directory\n")
    one_run(c, env=c.env(XTALK_CACHE=str(path)))
    c.check(path.read_text() == "not a directory\n", "data lost", "the file given as cache directory was changed")


@case("cache-dir-cannot-be-made")
def _(c: Case):
    one_run(c, env=c.env(XTALK_CACHE="/dev/null/xtalk-cache"))
