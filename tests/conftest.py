"""Fixtures every test module gets (pytest's conftest mechanism): a built native bench
program, headless Chromium (tests/framework/browser.py), the Xen labs checked before each
lab test (tests/framework/xen_lab.py), no `xtalk` a test started left running after it,
xtalk's leases in a lock directory of the session's own, and the Xen labs the session
started stopped at its end; the order of the tests, and a test marked `timing`, `fifo` or
`xen` alone (the others run in parallel in `make test`).
Helpers that test modules import live in tests/framework/, never here."""
from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.framework.alone import held_room, in_order, run_id, runs_alone
from tests.framework.known_answer import RECORD_ENV, VOIDED, record, recorded
from tests.framework.lab_freeze import labs_frozen
from tests.framework.other_work import OtherWork, summary
from tests.framework.browser import chromium  # noqa: F401  (a fixture for every test module)
from tests.framework.cli import stop_started
from tests.framework.repo import ROOT
from tests.framework.xen_lab import NEXT_TEST, stop_started_labs
from xtalk import signals
# the lab tests' fixtures (the lab checked before each test)
from tests.framework.xen_lab import (arm64_lab, arm64_lab_booted, rt_lab, rt_lab_booted, x86_64_lab,  # noqa: F401
                                     x86_64_lab_booted)


@pytest.fixture(scope="session")
def native_bench() -> Path:
    subprocess.run(["make", "-s", "-C", str(ROOT), "native"], check=True)
    return ROOT / "build" / "native" / "xtalk-bench"


@pytest.fixture(scope="session", autouse=True)
def own_lock_dir(tmp_path_factory):
    """The CPU leases of every xtalk a test runs (host/leases.py) in this session's own lock
    directory: a campaign run beside the tests (another test session's) refuses none of them."""
    os.environ["XTALK_LOCK_DIR"] = str(tmp_path_factory.mktemp("locks"))


@pytest.fixture(scope="session", autouse=True)
def labs_stopped_at_the_end():
    """The Xen labs the session's modules shared (tests/framework/xen_lab.py) stop with it."""
    yield
    stop_started_labs()


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """In the order that keeps the workers busy (alone.py's in_order: the tests of no lab that
    run alone back to back, since one interleaved among the rest waits for every other worker's
    test in progress to end and a lab left up between its tests, idle, takes a fifth of a CPU
    from a timing test; then each lab group, its boot beside the other worker's tests).
    Refused where xdist could not tag the group's tests (pytest-xdist 3.8 and pytest
    9.2: its tag is lost, and two workers would share a lab)."""
    grouped = [item for item in items if item.get_closest_marker("xdist_group")]
    if getattr(config.option, "loadgroup", False) and any("@" not in item.nodeid for item in grouped):
        raise pytest.UsageError("pytest-xdist did not tag the xdist_group tests with their group "
                                "(pytest and pytest-xdist versions that do not fit: see pyproject.toml)")
    items.sort(key=in_order)


WATCH = pytest.StashKey[OtherWork]()
FROZEN = pytest.StashKey[list]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """A test runs alone or beside others (runs_alone); alone, with the Xen labs it does not use
    frozen (lab_freeze.py) and what else ran on the CPUs watched (other_work.py: kept in the
    tier's record, named in its failure); when it waited for the room, began and ended in
    the record's timeline.jsonl. The test after it is known to the Xen lab fixtures
    (they stop a lab no later test wants)."""
    NEXT_TEST[0] = nextitem
    alone = runs_alone(item)
    asked = time.time()
    with held_room(run_id(item.config), alone=alone):
        began = time.time()
        try:
            if not alone:
                return (yield)
            item.stash[FROZEN] = []
            with labs_frozen(item, item.stash[FROZEN]):
                item.stash[WATCH] = OtherWork()
                try:
                    return (yield)
                finally:
                    record("other-work.jsonl", {"test": item.nodeid, "frozen": item.stash[FROZEN],
                                                **item.stash[WATCH].finish()})
        finally:  # where the gate's time goes: each test's wait for the room, its start and end
            record("timeline.jsonl", {"test": item.nodeid, "worker": os.environ.get("PYTEST_XDIST_WORKER", ""),
                                      "alone": alone, "asked": round(asked, 2), "began": round(began, 2),
                                      "ended": round(time.time(), 2)})


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A failure of a test that runs alone names what else ran on the CPUs meanwhile, in its
    message and in the short summary line."""
    report = yield
    if report.failed and WATCH in item.stash:
        said = summary(item.stash[WATCH].finish()) + "".join(f"; {f}" for f in item.stash[FROZEN])
        report.sections.append(("other work on the CPUs", said))
        crash = getattr(report.longrepr, "reprcrash", None)
        if crash is not None:
            crash.message = f"{crash.message} [{said}]"
        if hasattr(report.longrepr, "addsection"):
            report.longrepr.addsection("other work on the CPUs", said)
    return report


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """The known-answer tests this machine voided (known_answer.py), each with what xtalk said."""
    if hasattr(config, "workerinput") or not os.environ.get(RECORD_ENV):
        return
    voided = recorded(VOIDED)
    terminalreporter.write_sep("=", f"known-answer tests voided by this machine: {len(voided)}")
    for v in voided:
        terminalreporter.write_line(f"{v['test']}: {v['why']}")


@pytest.fixture(autouse=True)
def no_interrupt_carried_over(monkeypatch):
    """A Ctrl-C an earlier test raised in this process (signals.interrupt_raised) is not taken
    by this test's errors for their cause."""
    monkeypatch.setattr(signals, "_raised", [])


@pytest.fixture(autouse=True)
def no_xtalk_outlives_its_test():
    yield
    stop_started()
