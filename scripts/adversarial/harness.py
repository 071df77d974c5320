"""The adversarial probe's shared machinery: a Case (its own directories, lock directory,
cache and process marker), running the real `xtalk` command as a user would (a
subprocess with a timeout, TERM=dumb, stdout and stderr not a terminal), scoring what it
printed and how it ended, finding the processes a case left alive, and writing specs.

Columns a case can score (each counted once a case, with the reason kept):
  tracebacks  "Traceback" or "(a bug)" in what a command printed
  hangs       a command ran past its timeout (it is then SIGKILLed)
  wrong exits a status other than the one a user should get (0 ok, 2 usage/spec, 3 infra)
  data lost   measured runs gone, unreadable or duplicated; a store or a file corrupted
  orphans     a process the case started alive after its commands ended (found by the
              marker XTALK_PROBE_MARK in its environment; killed by PID)
  writes outside  a file written or created outside the directory it belongs in (a name
              with ../.., a link xtalk wrote in place of)
  links followed  a file another name (symlink, hard link) points to changed or emptied
  changes undetected  a stored file, record or plan changed and a check passed it
  control bytes  a raw C0/C1 control character (not \\n or \\t; ESC, U+009B ...) printed,
              or written into a CSV or Markdown
  half-done   work that failed left looking alive (a run "running", a partial file kept)
  unclear errors  an error a user caused that does not name its file or field, or words
              that say what did not happen
  wrong       a wrong answer: a number off, a damage not found, an error not said, a
              leftover (.partial, a ring, reserved blocks) the next command should
              have removed; and a failure of the probe itself (said as such)
"""
from __future__ import annotations

import json
import os
import secrets
import shlex
import shutil
import signal
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[2]
XTALK = ROOT / ".venv" / "bin" / "xtalk"
BENCH = ROOT / "build" / "native" / "xtalk-bench"
MARK = "XTALK_PROBE_MARK"
COLUMNS = ("tracebacks", "hangs", "wrong exits", "data lost", "orphans", "writes outside", "links followed",
           "changes undetected", "control bytes", "half-done", "unclear errors", "wrong")
OK, USAGE, INFRA = 0, 2, 3

REGISTRY: dict[str, list[tuple[str, Callable]]] = {}


def area(name: str) -> Callable:
    """The decorator that registers an area's cases, in the order they are written:
    `case = area("leases")`, then `@case("name")` on a function taking a Case."""
    REGISTRY.setdefault(name, [])

    def named(case_name: str) -> Callable:
        def register(fn: Callable) -> Callable:
            REGISTRY[name].append((case_name, fn))
            return fn
        return register
    return named


# ---- printing safely ------------------------------------------------------------------
def control_chars(data: bytes) -> list[str]:
    """The raw control characters in `data` (C0 but \\n and \\t, DEL, C1 as UTF-8 or as
    bare bytes), each as \\xNN / \\u00NN."""
    found = [f"\\x{b:02x}" for b in data if (b < 0x20 and b not in (0x09, 0x0A)) or b == 0x7F]
    text = data.decode("utf-8", "surrogateescape")
    found += [f"\\u{ord(ch):04x}" for ch in text if 0x80 <= ord(ch) <= 0x9F]
    found += [f"\\x{ord(ch) - 0xDC00:02x}" for ch in text if 0xDC80 <= ord(ch) <= 0xDC9F]
    return found


def visible(text: str, limit: int = 400) -> str:
    """`text` with every control character but newline shown as \\xNN (safe to print)."""
    out = "".join(ch if ch == "\n" or (" " <= ch and not 0x7F <= ord(ch) <= 0x9F) and not 0xDC80 <= ord(ch) <= 0xDCFF
                  else f"\\x{ord(ch) % 256:02x}" for ch in text)
    return out if len(out) <= limit else out[:limit] + "..."


def sh_quote(arg: str) -> str:
    """`arg` for a bash command line, control characters as $'\\xNN'."""
    if all(" " <= ch != "\x7f" for ch in arg):
        return shlex.quote(arg)
    return "$'" + "".join(f"\\x{b:02x}" if b < 0x20 or b >= 0x7F or b in b"'\\" else chr(b)
                          for b in arg.encode("utf-8", "surrogateescape")) + "'"


def first_lines(text: str, n: int = 4) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return visible("\n".join(lines[:n]), 600)


# ---- results ----------------------------------------------------------------------------
@dataclass
class Result:
    """One command's end: status (None when it hung), output, seconds, its command line."""
    rc: int | None
    out: str
    err: str
    secs: float
    line: str
    pid: int = 0

    @property
    def text(self) -> str:
        return self.out + self.err


@dataclass
class Verdict:
    area: str
    name: str
    flags: dict[str, list[str]] = field(default_factory=lambda: {c: [] for c in COLUMNS})
    commands: list[str] = field(default_factory=list)
    secs: float = 0.0
    note: str = ""

    def row(self) -> dict:
        return {"area": self.area, "case": self.name, "secs": round(self.secs, 1), "note": self.note,
                "columns": {c: int(bool(v)) for c, v in self.flags.items()},
                "why": {c: v for c, v in self.flags.items() if v}, "commands": self.commands}


# ---- a case -----------------------------------------------------------------------------
class Case:
    """One case: its own directory under --work (out/, locks/, cache/) and marker."""

    def __init__(self, area_name: str, name: str, work: Path):
        self.area, self.name = area_name, name
        self.dir = work / area_name / name
        if self.dir.exists():
            shutil.rmtree(self.dir, ignore_errors=True)
        self.dir.mkdir(parents=True)
        self.out, self.locks, self.cache = self.dir / "out", self.dir / "locks", self.dir / "cache"
        self.locks.mkdir(mode=0o700)
        self.mark = f"xtalk-probe-{secrets.token_hex(6)}"
        self.verdict = Verdict(area_name, name)
        self.cleanups: list[Callable] = []

    # -- scoring
    def flag(self, column: str, why: str) -> None:
        assert column in COLUMNS, column
        self.verdict.flags[column].append(visible(why, 800))

    def check(self, ok: bool, column: str, why: str) -> bool:
        if not ok:
            self.flag(column, why)
        return ok

    def says(self, res: Result, *words: str, column: str = "unclear errors") -> bool:
        """The command's output names each of `words` (a file, a field, what happened), else `column`."""
        missing = [w for w in words if w not in res.text]
        return self.check(not missing, column, f"`{res.line}` does not say {missing}: {first_lines(res.err or res.out)}")

    def note(self, text: str) -> None:
        self.verdict.note = (self.verdict.note + "; " if self.verdict.note else "") + text

    # -- environment
    def env(self, **over: str | None) -> dict:
        env = {k: v for k, v in os.environ.items() if not k.startswith("XTALK_") and k not in ("NO_COLOR", "COLUMNS")}
        env.update(TERM="dumb", XTALK_LOCK_DIR=str(self.locks), XTALK_CACHE=str(self.cache), PYTHONUNBUFFERED="1")
        env[MARK] = self.mark
        for key, value in over.items():
            if value is None:
                env.pop(key, None)
            else:
                env[key] = value
        return env

    def _line(self, argv: list[str], env: dict) -> str:
        shown = [f"{k}={sh_quote(env[k])}" for k in sorted(env) if k.startswith("XTALK_") and k != MARK]
        shown += [f"{k}=<unset>" for k in ("XTALK_LOCK_DIR", "XTALK_CACHE") if k not in env]
        return " ".join(shown + ["TERM=dumb", *map(sh_quote, argv)])

    # -- running xtalk
    def start(self, *args, env: dict | None = None, program: list[str] | None = None,
              cwd: Path | None = None) -> subprocess.Popen:
        """Start `xtalk ARGS` (or `program`) without waiting; its output goes to files."""
        argv = [*(program or [str(XTALK)]), *map(str, args)]
        env = env or self.env()
        n = len(self.verdict.commands)
        outs = (self.dir / f".cmd{n}.out", self.dir / f".cmd{n}.err")
        with outs[0].open("wb") as out, outs[1].open("wb") as err:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env,
                                    cwd=str(cwd or self.dir))
        proc.probe_files, proc.probe_line, proc.probe_t0 = outs, self._line(argv, env), time.monotonic()
        self.verdict.commands.append(proc.probe_line)
        return proc

    def finish(self, proc: subprocess.Popen, expect=(OK,), timeout: float = 120, hang_ok: bool = False) -> Result:
        """Wait for a started command and score it: traceback, hang, exit, escapes."""
        try:
            rc = proc.wait(timeout=max(0.1, timeout - (time.monotonic() - proc.probe_t0)))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            rc = None
        data = [p.read_bytes() for p in proc.probe_files]
        res = Result(rc, *(d.decode("utf-8", "replace") for d in data), time.monotonic() - proc.probe_t0,
                     proc.probe_line, proc.pid)
        self.score(res, data, expect, hang_ok)
        return res

    def xtalk(self, *args, expect=(OK,), timeout: float = 120, env: dict | None = None, hang_ok: bool = False,
              program: list[str] | None = None, cwd: Path | None = None) -> Result:
        """Run `xtalk ARGS` to its end (or `timeout`) and score it."""
        return self.finish(self.start(*args, env=env, program=program, cwd=cwd), expect, timeout, hang_ok)

    def score(self, res: Result, data: list[bytes], expect, hang_ok: bool) -> None:
        expect = (expect,) if isinstance(expect, int) else tuple(expect)
        head = f"`{res.line}` -> exit {res.rc}: {first_lines(res.err or res.out)}"
        if "Traceback" in res.text or "(a bug" in res.text:
            self.flag("tracebacks", head)
        if res.rc is None and not hang_ok:
            self.flag("hangs", f"`{res.line}` still running after {res.secs:.0f} s (killed)")
        elif res.rc is not None and res.rc not in expect:
            self.flag("wrong exits", f"expected exit {'/'.join(map(str, expect))}; {head}")
        bad = control_chars(data[0]) + control_chars(data[1])
        if bad:
            self.flag("control bytes", f"{len(bad)} control characters ({', '.join(sorted(set(bad))[:6])}); {head}")

    # -- processes
    def marked(self) -> dict[int, str]:
        """Live (not zombie) processes carrying this case's marker: {pid: command line}."""
        found = {}
        needle = f"{MARK}={self.mark}".encode()
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            try:
                with open(f"/proc/{entry.name}/environ", "rb") as f:
                    if needle not in f.read().split(b"\0"):
                        continue
                with open(f"/proc/{entry.name}/stat") as f:
                    if f.read().rsplit(")", 1)[-1].split()[0] == "Z":
                        continue
                with open(f"/proc/{entry.name}/cmdline", "rb") as f:
                    found[int(entry.name)] = f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
            except OSError:
                continue
        return found

    def orphans(self, grace_s: float = 5.0, when: str = "after its commands ended") -> dict[int, str]:
        """Flag (and SIGKILL, by PID) the marked processes still alive after `grace_s`."""
        end = time.monotonic() + grace_s
        while (left := self.marked()) and time.monotonic() < end:
            time.sleep(0.1)
        if left:
            self.flag("orphans", f"{len(left)} process(es) alive {when}: " +
                      "; ".join(f"PID {p}: {c[:120]}" for p, c in sorted(left.items())))
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        return left


def run_case(area_name: str, name: str, fn: Callable, work: Path) -> Verdict:
    case = Case(area_name, name, work)
    t0 = time.monotonic()
    try:
        fn(case)
    except Exception as err:  # the probe's own failure: said as such, never scored as xtalk's
        case.note(f"PROBE ERROR {type(err).__name__}: {err}")
        case.verdict.flags["wrong"].append("the probe itself failed here: " +
                                           visible(traceback.format_exc(limit=3)[-600:]))
    finally:
        for fn_cleanup in reversed(case.cleanups):
            try:
                fn_cleanup()
            except Exception as err:
                case.note(f"cleanup failed: {err}")
        case.orphans(grace_s=3.0)
    case.verdict.secs = time.monotonic() - t0
    return case.verdict


# ---- specs ------------------------------------------------------------------------------
def spec(c: Case, name: str = "probe", reps: int = 1, duration: float = 0.3, placements=("solo", "same-core"),
         stressor: str | None = "cache_thrash", stressor_params: str = 'size = "256k"', extra: str = "",
         file: str = "spec.toml", measurer_params: str = "size_kib = 64") -> Path:
    """A small native campaign spec (a pilot: no design check in the way), written in the case's directory."""
    text = (f'name = "{name}"\ncpus = [0, 1]\n[backend]\nkind = "native"\n'
            f"[run]\nduration_s = {duration}\nrepetitions = {reps}\npilot = true\ngrace_s = 5\nstart_gap_s = 0.1\n"
            f'[measurer]\nbench = "qsort"\nparams = {{ {measurer_params} }}\n')
    if stressor:
        text += f'[[stressors]]\nname = "neighbour"\nbench = "{stressor}"\nparams = {{ {stressor_params} }}\n'
        text += f"[matrix]\nplacement = {json.dumps(list(placements))}\n"
    path = c.dir / file
    path.write_text(text + extra)
    return path


def wait_for(predicate: Callable, timeout: float, step: float = 0.02):
    """The predicate's first true value within `timeout` s, else None."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    return None


def kill_only(proc: subprocess.Popen) -> None:
    """SIGKILL this process alone (not its group) and reap it."""
    try:
        os.kill(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    proc.wait()


def python() -> str:
    return sys.executable
