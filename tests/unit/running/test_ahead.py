"""The next run's guests launched ahead of it (running/ahead.py), with real QEMU guests and a
real campaign in this process: launched once the previous run's measured window is over,
before its guests are stopped and its store has ended, then only resumed by their run; a launched guest that dies
before it answers QMP is its own run's error, and the campaign goes on; a Ctrl-C while a
run is stored stops the next run's launched guests and stores that run as interrupted
before it began."""
from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from tests.framework.backends import NEEDS_QEMU
from tests.framework.cli import alive
from xtalk.backends.qemu import QemuBackend
from xtalk.results.records import read_events
from xtalk.results.store import CampaignStore, RunWriter
from xtalk.running.ahead import NOT_BEGUN
from xtalk.running.campaign import run_campaign
from xtalk.running.runner import RunState
from xtalk.spec.load import parse_campaign

pytestmark = NEEDS_QEMU

SPEC = """
name = "ahead"
cpus = [0, 1]
[backend]
kind = "qemu"
arch = "x86_64"
[run]
repetitions = {repetitions}
[measurer]
bench = "qsort"
iterations = 3
params = {{ size_kib = 16 }}
"""


def campaign(tmp_path: Path, repetitions: int) -> CampaignStore:
    text = SPEC.format(repetitions=repetitions)
    spec, raw = parse_campaign(text, "spec.toml")
    return run_campaign(spec, raw, text, "spec.toml", tmp_path).store


def run_of(handle) -> str:
    return handle.backend_state["files"].run_dir.name


@pytest.fixture
def steps(monkeypatch) -> list[tuple[str, str, int]]:
    """(step, run id, host ns) of the guests' lifecycle and the runs' stores, in order:
    spies on the real methods, which still do all they do."""
    seen: list[tuple[str, str, int]] = []

    def spy(owner, name, step, run, before=False):
        real = getattr(owner, name)

        def wrapper(self, *args, **kwargs):
            if before:
                seen.append((step, run(self, *args), time.monotonic_ns()))
            out = real(self, *args, **kwargs)
            if not before:
                seen.append((step, run(self, *args), time.monotonic_ns()))
            return out
        monkeypatch.setattr(owner, name, wrapper)

    spy(QemuBackend, "launch", "launch", lambda self, guest, run: run.run_id, before=True)
    spy(QemuBackend, "stop", "stopped", lambda self, handle: run_of(handle))
    spy(QemuBackend, "resume", "resume", lambda self, handle: run_of(handle), before=True)
    spy(RunWriter, "finish", "stored", lambda self, *args: self.path.name)
    spy(RunState, "close_window", "window closed", lambda self, *args: self.run.run_id)
    return seen


def first(steps, step: str, run: str) -> int:
    return min(ns for s, r, ns in steps if (s, r) == (step, run))


def last(steps, step: str, run: str) -> int:
    return max(ns for s, r, ns in steps if (s, r) == (step, run))


def test_guests_are_launched_between_the_previous_runs_window_and_the_end_of_its_store(tmp_path, steps, monkeypatch):
    real_launch = QemuBackend.launch

    def dying_in_r2(self, guest, run):
        handle = real_launch(self, guest, run)
        if run.run_id == "solo-r2":  # dies before it answers QMP
            os.kill(handle.pids[0], signal.SIGKILL)
        return handle
    monkeypatch.setattr(QemuBackend, "launch", dying_in_r2)
    store = campaign(tmp_path, repetitions=3)
    runs = {r["run_id"]: r for r in store.runs()}
    assert [runs[r]["status"] for r in ("solo-r1", "solo-r2", "solo-r3")] == ["pass", "error", "pass"]
    assert "gave no QMP" in runs["solo-r2"]["reason"], runs["solo-r2"]["reason"]  # its own run's error
    for before, after in (("solo-r1", "solo-r2"), ("solo-r2", "solo-r3")):
        assert first(steps, "launch", after) < last(steps, "stopped", before) < last(steps, "stored", before)
    assert last(steps, "window closed", "solo-r1") < first(steps, "launch", "solo-r2")  # (solo-r2 had no window)
    assert last(steps, "stored", "solo-r2") < first(steps, "resume", "solo-r3")  # settled, then resumed by its run
    (start,) = [e for e in read_events(store.run_dir("solo-r3") / "events.jsonl") if e["kind"] == "guest_start"]
    assert first(steps, "launch", "solo-r2") < start["prepared_ns"] <= first(steps, "launch", "solo-r3")
    (first_start,) = [e for e in read_events(store.run_dir("solo-r1") / "events.jsonl") if e["kind"] == "guest_start"]
    assert "prepared_ns" not in first_start  # the first run's guest: started when the run asked
    assert not list(Path("/dev/shm").glob(f"xtalk-{os.getpid()}-solo-r*"))


def test_a_ctrl_c_while_a_run_is_stored_stops_the_next_runs_launched_guests(tmp_path, steps, monkeypatch):
    real_finish = RunWriter.finish  # the spy's: it notes the store

    def interrupted_store(self, *args, **kwargs):
        if self.path.name == "solo-r1":
            os.kill(os.getpid(), signal.SIGINT)  # held until the run is stored (signals.deferred_interrupts)
        return real_finish(self, *args, **kwargs)
    monkeypatch.setattr(RunWriter, "finish", interrupted_store)
    launched = []
    real_launch = QemuBackend.launch
    monkeypatch.setattr(QemuBackend, "launch", lambda self, guest, run: launched.append(real_launch(self, guest, run))
                        or launched[-1])
    with pytest.raises(KeyboardInterrupt):
        campaign(tmp_path, repetitions=2)
    assert launched and not any(alive(h.pids[0]) for h in launched)
    store = CampaignStore(next((tmp_path).glob("ahead-*")))
    statuses = {r["run_id"]: (r["status"], r["reason"]) for r in store.runs()}
    assert statuses == {"solo-r1": ("pass", ""), "solo-r2": ("interrupted", NOT_BEGUN)}
    assert not [e for e in read_events(store.run_dir("solo-r2") / "events.jsonl") if e["kind"] == "guest_start"]
    assert not list(Path("/dev/shm").glob(f"xtalk-{os.getpid()}-solo-r*"))


ORDERS = """
name = "orders"
cpus = [0, 1]
[backend]
kind = "qemu"
[measurer]
bench = "qsort"
[[stressors]]
name = "thrash"
bench = "cache_thrash"
[[stressors]]
name = "later"
bench = "cache_thrash"
[matrix]
start_order = ["measurer-first", "stressor-first"]
placement = ["other-core"]
[[timeline]]
at_s = 1
action = "start"
target = "later"
"""


def test_only_guests_started_before_the_window_are_launched_ahead():
    """A measurer-first run's stressor starts a gap after its measurer, inside the measured
    window: when the run asks, not ahead; a timeline stressor (held paused from the
    run's start) and every guest of a stressor-first run are launched ahead."""
    from xtalk.running.ahead import before_the_window
    from xtalk.spec.plan import plan

    spec, raw = parse_campaign(ORDERS, "orders.toml")
    early = {run.start_order: before_the_window(run) for run in plan(spec, raw)}
    assert early == {"measurer-first": {"measurer", "later"}, "stressor-first": {"measurer", "thrash", "later"}}
