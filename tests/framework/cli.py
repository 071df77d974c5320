"""Helpers for black-box tests: run the real `xtalk` command, find its workload processes."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

XTALK = [sys.executable, "-m", "xtalk.cli.main"]


def xtalk(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([*XTALK, *map(str, args)], capture_output=True, text=True, timeout=timeout)


STARTED: list[subprocess.Popen] = []  # stopped at each test's end (conftest.py), however the test ended


def start(*args: str) -> subprocess.Popen:
    proc = subprocess.Popen([*XTALK, *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    STARTED.append(proc)
    return proc


def stop_started(grace_s: float = 30) -> None:
    """Ctrl-C every `xtalk` a test started and left running (a test that timed out waiting
    for it), SIGKILL after grace_s: what it holds (a board, a lab's domains) is given back
    before the next test."""
    for proc in STARTED:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.communicate(timeout=grace_s)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.communicate()
    STARTED.clear()


def write_spec(tmp_path: Path, text: str, name: str = "spec.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


OUTSIDE = """
name = "outside"
cpus = [0, 1]
[run]
duration_s = 1
[measurer]
bench = "qsort"
params = {{ size_kib = 64 }}
"""  # a second of a measurer, for an [instrument] to watch (a template: format it with the instrument)


SMALL = """
name = "small"
cpus = [0, 1]
[run]
duration_s = {duration}
grace_s = 5
repetitions = {reps}
[measurer]
bench = "qsort"
iterations = {iterations}
params = {{ size_kib = 256 }}
[[stressors]]
name = "thrash"
bench = "cache_thrash"
params = {{ size = "4m" }}
[matrix]
placement = {placements}
"""


def small(tmp_path, duration=5, reps=1, iterations=20, placements='["solo", "same-core"]', extra=""):
    """A native campaign spec: qsort next to a cache thrasher."""
    return write_spec(tmp_path, SMALL.format(duration=duration, reps=reps, iterations=iterations,
                                             placements=placements) + extra)


def campaign_dir(out: Path) -> Path | None:
    """The one campaign in `out` (None while it is still being created)."""
    found = [p for p in out.iterdir() if (p / "campaign.json").is_file()] if out.is_dir() else []
    assert len(found) <= 1, found
    return found[0] if found else None


def run_meta(out: Path, run_id: str) -> dict:
    return json.loads((campaign_dir(out) / "runs" / run_id / "meta.json").read_text())


def guest_pids(out: Path) -> dict[str, int]:
    """PIDs of every workload xtalk started, from the stored guest_start events."""
    pids = {}
    for events in (campaign_dir(out) or out).glob("runs/*/events.jsonl"):
        for line in events.read_text().splitlines():
            rec = json.loads(line)
            if rec["kind"] == "guest_start":
                pids[f"{events.parent.name}/{rec['guest']}"] = rec["pid"]
    return pids


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def gone(pid: int) -> bool:
    """The process ended within a second: no longer there, or a zombie waiting for its reaper."""
    for _ in range(20):
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


def wait_for(predicate, timeout: float, what: str):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def started_runs(out: Path) -> list[str]:
    return sorted(p.parent.name for p in (campaign_dir(out) or out).glob("runs/*/meta.json"))

