"""Process trees of a capture program (an [instrument] of kind "program",
src/xtalk/instruments/program.py, reaper.py; docs/instruments.md): nothing the program
starts may outlive the run or a SIGKILLed xtalk: a background child of a bash program, a
child deaf to SIGINT and SIGTERM, one started with setsid, a double-forked daemon, the
child of a program that exits by itself, a program deaf to its stop signal. Every process
of the case carries the probe's marker in its environment, so a survivor is found by it.
A capture line with garbage (an escape sequence) in place of a channel must fail the run.
"""
from __future__ import annotations

import json

from harness import INFRA, OK, Case, area, kill_only, spec, wait_for
from store import running_run

case = area("process_trees")
EDGES = "printf 'irq 1000\\nisr 1007\\n'"
DAEMON = ("import os, sys, time\n"
          "if os.fork() == 0:\n"
          "    os.setsid()\n"
          "    if os.fork() == 0:\n"
          "        os.closerange(0, 3)\n"
          "        time.sleep(300)\n"
          "    os._exit(0)\n"
          "print('irq 1000'); print('isr 1007', flush=True)\n"
          "time.sleep(300)\n")


def capture_spec(c: Case, command: list[str], extra: str = "", duration: float = 0.5):
    text = ('[instrument]\nkind = "program"\nstimulus = "irq"\nresponse = "isr"\nsamplerate_hz = 1000000\n'
            f"[instrument.program]\ncommand = {json.dumps(command)}\n{extra}")
    return spec(c, stressor=None, duration=duration, extra=text)


def capture_case(script: str, expect=(OK,), extra: str = "", program: str = "bash"):
    def run(c: Case):
        command = ["bash", "-c", script] if program == "bash" else ["python3", "-c", script]
        c.xtalk("run", capture_spec(c, command, extra), "--out", c.out, expect=expect, timeout=90)
        c.orphans(grace_s=3, when="after `xtalk run` ended")
    return run


case("bash-program-with-a-background-child")(capture_case(f"sleep 300 & {EDGES}; wait"))
case("child-deaf-to-int-and-term")(capture_case(f"(trap '' INT TERM; exec sleep 300) & {EDGES}; wait"))
case("child-started-with-setsid")(capture_case(f"setsid sleep 300 & {EDGES}; wait"))
case("program-exits-by-itself-leaving-a-child")(capture_case(f"(sleep 300 &) ; {EDGES}; exit 0"))
case("double-forked-daemon")(capture_case(DAEMON, program="python"))
case("program-deaf-to-its-stop-signal")(capture_case(
    f"trap '' INT TERM; {EDGES}; while :; do sleep 0.1; done", expect=(OK, INFRA), extra="stop_timeout_s = 1\n"))


@case("xtalk-sigkilled-while-capturing")
def _(c: Case):
    spec_path = capture_spec(c, ["bash", "-c", f"sleep 300 & setsid sleep 300 & {EDGES}; wait"], duration=5)
    proc = c.start("run", spec_path, "--out", c.out)
    seen = wait_for(lambda: running_run(c.out) and len(c.marked()) > 4 and c.marked(), 30) or {}
    c.note(f"{len(seen)} processes of the case when xtalk was killed")
    kill_only(proc)
    c.finish(proc, expect=(-9,), timeout=5)
    c.orphans(grace_s=5, when="5 s after xtalk was SIGKILLed")


@case("capture-line-with-garbage-for-a-channel")
def _(c: Case):
    script = "printf '\\033[31mirq\\033[0m 1000\\nisr 1007\\n'; sleep 300"
    res = c.xtalk("run", capture_spec(c, ["bash", "-c", script]), "--out", c.out, expect=(INFRA,), timeout=90)
    c.check("instrument.txt" in res.text, "wrong", f"the failure does not name instrument.txt: {res.err[-300:]}")
