"""signals.py and the command's start (cli/__init__.py): a Ctrl-C or SIGTERM raised where
Python cannot pass it on is kept, not printed; started as the xtalk command, a signal in
the seconds of imports before main() ends xtalk with 130 and one line, not a traceback."""
from __future__ import annotations

import signal
import subprocess
import sys
import weakref

import pytest

from xtalk import signals
from xtalk.cli import calibrate_cmd, list_cmd, main, run_cmd, spec_cmd


@pytest.fixture
def handlers_kept():
    """A command ignores the signals on its way out: this process's come back after it."""
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    yield
    for s, handler in handlers.items():
        signal.signal(s, handler)


class Thing:
    pass


def test_an_interrupt_raised_in_a_weakref_callback_is_kept_not_printed(monkeypatch, capsys):
    monkeypatch.setattr(signals, "_lost", [])
    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)
    signals.keep_lost_interrupts()
    thing = Thing()

    def callback(ref):
        raise KeyboardInterrupt

    ref = weakref.ref(thing, callback)
    del thing  # the callback runs here; Python cannot raise its exception to anyone
    assert ref() is None and signals.lost_interrupts()
    assert "KeyboardInterrupt" not in capsys.readouterr().err


def test_other_unraisable_errors_still_go_to_the_previous_hook(monkeypatch):
    monkeypatch.setattr(signals, "_lost", [])
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", lambda args: seen.append(args.exc_type))
    signals.keep_lost_interrupts()
    thing = Thing()

    def callback(ref):
        raise ValueError("not an interrupt")

    ref = weakref.ref(thing, callback)
    del thing
    assert ref() is None and seen == [ValueError] and not signals.lost_interrupts()


STARTING = """
import os, signal, sys, time
sys.argv[0] = "xtalk"
import xtalk.cli
os.kill(os.getpid(), signal.{name})  # as if sent while the commands' modules are imported
time.sleep(5)
"""


def test_a_signal_while_the_command_starts_ends_it_with_130_and_one_line():
    for name in ("SIGTERM", "SIGINT"):
        res = subprocess.run([sys.executable, "-c", STARTING.format(name=name)], capture_output=True, text=True,
                             timeout=60)
        assert res.returncode == 130, (name, res.returncode, res.stderr)
        assert res.stderr == "xtalk: interrupted while starting; nothing was started\n"


def test_imported_by_anything_else_the_signals_are_left_alone():
    import xtalk.cli  # noqa: F401 - imported by pytest, not started as xtalk
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_further_interrupt_on_the_way_out_still_names_the_campaign(tmp_path):
    """A SIGTERM that lands while a CampaignInterrupted is passed on (the leases' release)
    raises a plain KeyboardInterrupt: the message still names the campaign and how to go on."""
    import argparse

    from xtalk.cli.main import _interrupted
    args = argparse.Namespace(interrupted="stored", resume_command=lambda a: "xtalk run spec.toml --resume")
    try:
        try:
            raise signals.CampaignInterrupted(tmp_path / "small-1")
        except KeyboardInterrupt:
            raise KeyboardInterrupt  # noqa: B904 - what a signal handler raises on the way out
    except KeyboardInterrupt as stop:
        told = _interrupted(args, stop)
    assert told == f"stored in campaign small-1 ({tmp_path / 'small-1'}); continue it with: xtalk run spec.toml --resume"
    assert _interrupted(args, KeyboardInterrupt()) == "stored"


def test_an_interrupt_a_library_wraps_in_its_own_error_ends_the_command_as_interrupted(monkeypatch, capsys,
                                                                                       handlers_kept):
    """A SIGTERM raised inside pydantic's schema build comes out as a SchemaError: the
    command still ends with 130 and one line, not as a bug."""
    def wrapped(args):
        try:
            signals.interrupt(signal.SIGTERM, None)
        except KeyboardInterrupt as stop:
            raise RuntimeError("Error building `definitions` serializer") from stop
    monkeypatch.setattr(signals, "_raised", [])
    monkeypatch.setattr(list_cmd, "run", wrapped)
    assert main.main(["list"]) == 130
    err = capsys.readouterr().err
    assert err.startswith("xtalk: interrupted") and "a bug" not in err, err


def _interrupt(args):
    raise KeyboardInterrupt


@pytest.mark.parametrize("module, handler, argv, told", [
    (spec_cmd, "check_spec", ["spec", "check", "x.toml"], "it stopped before it finished"),
    (calibrate_cmd, "run", ["calibrate", "x.toml"], "every guest was stopped and what was measured is stored"),
    (run_cmd, "run", ["run", "x.toml"], "every guest was stopped and what was measured is stored")])
def test_an_interrupt_says_what_the_command_left(monkeypatch, capsys, handlers_kept, module, handler, argv, told):
    """issue 58: SIGTERM on `spec check` said guests were stopped and measurements stored."""
    monkeypatch.setattr(module, handler, _interrupt)
    assert main.main(argv) == 130
    assert capsys.readouterr().err.strip() == f"xtalk: interrupted; {told}"
