"""Errors a user can cause, and what xtalk says of them (issue 58's unclear words): a
malformed worker job or one that is no JSON, a lab's torn state file (`lab status`, `lab
stop`), a --set value with a newline (once cut there silently) and a SIGTERM during `spec
check` (once said to have stopped guests and stored measurements). Each must name its
field or file in one line, never "(a bug)", and say only what happened; else "unclear
errors" is scored.
"""
from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

from harness import OK, USAGE, XTALK, Case, area, spec, wait_for

case = area("words")
WORKER = ["bash", "-c", 'printf "%s\\n" "$1" | "$0" worker', str(XTALK)]
TORN_STATE = '{"arch": "arm64", "pid": 12'


def job(c: Case, **changed) -> str:
    good = {"spec": spec(c).read_text(), "overrides": [], "values": {}, "run_id": "solo-r1", "attempt": 1,
            "as": {"run_id": "solo-r1", "config_id": "solo", "config": {"placement": "solo"}}}
    return json.dumps(good | changed)


@case("worker-job-with-a-field-of-the-wrong-kind")
def _(c: Case):
    res = c.xtalk(job(c, attempt="first"), program=WORKER, expect=(USAGE,))
    c.says(res, "attempt", "no valid job")


@case("worker-job-that-is-no-json")
def _(c: Case):
    c.says(c.xtalk('{"spec": "name', program=WORKER, expect=(USAGE,)), "no valid job", "not one JSON line")


def torn_state(c: Case) -> tuple[Path, subprocess.Popen]:
    """A lab state file torn mid-write, and a stand-in for its QEMU (its command line names the
    lab's directory, as QEMU's does)."""
    run_dir = c.cache / "lab" / "run" / "arm64"
    run_dir.mkdir(parents=True)
    (run_dir / "state.json").write_text(TORN_STATE)
    qemu = c.start(program=["python3", "-c", "import time; time.sleep(120)", str(run_dir / "serial.sock")])
    c.cleanups.append(qemu.kill)
    return run_dir / "state.json", qemu


@case("lab-status-of-a-torn-state-file")
def _(c: Case):
    state, _ = torn_state(c)
    c.says(c.xtalk("lab", "status", expect=(1,)), str(state), "xtalk lab stop")


@case("lab-stop-of-a-torn-state-file")
def _(c: Case):
    state, qemu = torn_state(c)
    res = c.xtalk("lab", "stop", "--arch", "arm64", expect=(OK,))
    c.says(res, "damaged", f"pid {qemu.pid}")
    c.check(wait_for(lambda: qemu.poll() is not None, 10) and not state.exists(), "unclear errors",
            "the lab's process or its torn state file was left")


@case("set-value-with-a-newline")
def _(c: Case):
    res = c.xtalk("run", spec(c), "--out", c.out, "--set", "run.repetitions=1\nrun.duration_s=99", expect=(USAGE,))
    c.says(res, "--set", "run.repetitions")
    c.check(not any(c.out.glob("*/runs/*")), "unclear errors", "runs stored after a refused --set")


@case("sigterm-during-spec-check")
def _(c: Case):
    path = spec(c)
    path.write_text(path.read_text() + "[analysis]\n" + "".join(f"unknown_key_{i} = {i}\n" for i in range(40_000)))
    proc = c.start("spec", "check", path)
    checking = wait_for(lambda: proc.poll() is not None or checks_a_spec(proc.pid), 30, step=0.005)
    if proc.poll() is None and checking:
        proc.send_signal(signal.SIGTERM)
    res = c.finish(proc, expect=(130, USAGE), timeout=30)
    if res.rc != 130:
        c.note(f"spec check ended (exit {res.rc}) before the SIGTERM landed: its words not scored")
        return
    c.check("guest" not in res.err and "stored" not in res.err, "unclear errors",
            f"a SIGTERM on spec check said: {res.err.strip()[:200]}")


def checks_a_spec(pid: int) -> bool:
    """Whether process `pid` is checking a spec now: it has loaded pydantic's core, which
    `spec check` imports only once main() has taken the signals (cli/__init__.py)."""
    try:
        with open(f"/proc/{pid}/maps") as f:
            return "_pydantic_core" in f.read()
    except OSError:
        return False
