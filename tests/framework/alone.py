"""Tests that compare measured times, those that run SCHED_FIFO workloads, and those of the
Xen lab (whose TCG vCPUs need the host's CPUs) run with no other test beside them, while the
rest of the suite runs in parallel (pytest-xdist, `make test`): a test marked `timing`,
`fifo` or `xen` takes the room alone (runs_alone), every other test shares it; in_order is
the order that keeps the workers busy (conftest.py sorts the session's tests by it).
A readers-writer lock over two flock(2) files in a directory of the test run's own (xdist's
run id, shared by its workers): a test that wants the room alone holds the turnstile while
it waits, so the tests that come after it wait too instead of starving it. Held over a
test's whole protocol, so the fixtures its module sets up at its first test (a campaign
measured once for the module) are inside. Without xdist the lock is always free.
Caveat: what a test leaves running between tests (a Xen lab booted for its module, idle)
is not stopped for a timing test."""
from __future__ import annotations

import fcntl
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

OWN_RUN_ID = uuid.uuid4().hex  # a run without xdist workers


def run_id(config: pytest.Config) -> str:
    """The id all workers of this test run share."""
    return getattr(config, "workerinput", {}).get("testrunuid", OWN_RUN_ID)


@contextmanager
def held_room(run_id: str, alone: bool) -> Iterator[None]:
    """Hold the room shared, or alone when `alone`, for the duration of the block."""
    base = Path(tempfile.gettempdir()) / f"xtalk-tests-{run_id}"
    base.mkdir(exist_ok=True)
    with open(base / "turnstile", "a") as turnstile, open(base / "room", "a") as room:
        fcntl.flock(turnstile, fcntl.LOCK_EX)
        try:
            fcntl.flock(room, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        finally:
            fcntl.flock(turnstile, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(room, fcntl.LOCK_UN)


def runs_alone(item) -> bool:
    """A test marked `timing`, `fifo` or `xen` runs with no other test beside it: what it
    measures must not share the host, a SCHED_FIFO thread on the same CPU starves the other,
    a TCG Xen lab's vCPUs need the host's CPUs (or dom0 stops answering)."""
    return any(item.get_closest_marker(mark) is not None for mark in ("timing", "fifo", "xen"))


def in_order(item) -> tuple[int, bool, bool]:
    """A test's place in the session: first the tests of no xdist group that run alone, then
    those of each group (a Xen lab's: one worker runs them one after the other) with the ones
    that share the room first (the group's lab boots in its first test, which measures
    nothing: beside the other worker's tests where xdist hands the group out after the alone
    tests; in the gates of 2026-12-03 it handed it out among them, at 33-35 s), then the rest;
    the slow before the short in each part, so that the short ones fill the end."""
    grouped = item.get_closest_marker("xdist_group") is not None
    return (1 if grouped else 0 if runs_alone(item) else 2, grouped and runs_alone(item),
            item.get_closest_marker("slow") is None)
