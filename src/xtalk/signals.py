"""How xtalk takes SIGINT and SIGTERM: both stop it the way Ctrl-C does (KeyboardInterrupt,
exit 130), and once a run tears down (its guests stopped, its ring removed, the run
stored) further ones wait until that is done, so that a second Ctrl-C cannot leave
guests running or a run unstored. Also alive(): whether a process of this host still
exists (signal 0).
Caveat: signal handlers belong to the main thread; elsewhere both guards do nothing (the
main thread's handlers stay)."""
from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

TEARDOWN_LIMIT_S = 30.0  # how long a teardown may go on once a further signal came
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def alive(pid: int) -> bool:
    """Whether process `pid` exists on this host (one of another user's counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


_raised: list[int] = []  # the signals interrupt() turned into KeyboardInterrupt


def interrupt(signum, frame):
    _raised.append(signum)
    raise KeyboardInterrupt


def interrupt_raised() -> bool:
    """Whether a Ctrl-C or SIGTERM was raised in this process (by interrupt()): an error
    that follows it may be a library's wrapping of it (pydantic's schema build turns it into
    a SchemaError)."""
    return bool(_raised)


class CampaignInterrupted(KeyboardInterrupt):
    """A Ctrl-C or SIGTERM that stopped a campaign whose directory exists: which one, so
    that the message can name it and how to go on."""

    def __init__(self, campaign: Path):
        super().__init__(str(campaign))
        self.campaign = campaign


@contextmanager
def interrupts_name(campaign: Path) -> Iterator[None]:
    """A KeyboardInterrupt out of the block becomes a CampaignInterrupted of `campaign`."""
    try:
        yield
    except CampaignInterrupted:
        raise
    except KeyboardInterrupt as stop:
        raise CampaignInterrupted(campaign) from stop


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM takes the same clean path as Ctrl-C."""
    if not _main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def deferred_interrupts(limit_s: float = TEARDOWN_LIMIT_S) -> Iterator[None]:
    """SIGINT and SIGTERM during the block are noted, not raised, and raised as
    KeyboardInterrupt once the block has ended (unless it raised itself). The first one
    sets a hard limit: a block still running `limit_s` later is interrupted anyway (a
    teardown that hangs must not hold the user forever)."""
    if not _main_thread():
        yield
        return
    noted: list[int] = []

    def note(signum, frame):
        if not noted:
            signal.setitimer(signal.ITIMER_REAL, limit_s)
            print(f"xtalk: stopping the guests and storing the run first (at most {limit_s:g} s)", file=sys.stderr)
        noted.append(signum)

    previous = {s: signal.signal(s, note) for s in STOP_SIGNALS}
    previous_alarm = signal.signal(signal.SIGALRM, interrupt)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous_alarm)
        for s, handler in previous.items():
            signal.signal(s, handler)
    if noted:
        raise KeyboardInterrupt


@contextmanager
def blocked_interrupts() -> Iterator[None]:
    """SIGINT and SIGTERM held back by the kernel during the block (a few renames that must
    happen together), delivered when it ends."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


_lost: list[str] = []  # Ctrl-Cs and SIGTERMs raised where Python could not pass them on


def keep_lost_interrupts() -> None:
    """A Ctrl-C or SIGTERM whose KeyboardInterrupt was raised inside a weakref callback or a
    __del__ (Python prints "Exception ignored" and goes on) is noted, not printed, so the
    command can still end as interrupted (lost_interrupts()); other such errors go to the
    hook there was."""
    previous = sys.unraisablehook

    def note(hook_args) -> None:
        if hook_args.exc_type is not None and issubclass(hook_args.exc_type, KeyboardInterrupt):
            _lost.append(repr(hook_args.object))
            return
        previous(hook_args)
    sys.unraisablehook = note


def lost_interrupts() -> bool:
    return bool(_lost)


def ignore_interrupts() -> None:
    """From now on SIGINT and SIGTERM do nothing: xtalk is on its way out, all cleaned up."""
    if _main_thread():
        for s in STOP_SIGNALS:
            signal.signal(s, signal.SIG_IGN)
