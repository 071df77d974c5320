"""Command line: one module per subcommand, dispatched by main.py.

Started as `xtalk` or `python -m xtalk.cli.main`, a Ctrl-C or SIGTERM in the second of
imports before main() takes the signals ends xtalk at once with 130 (nothing has started
that needs stopping but artifacts.make_ahead's make, stopped too), not with a traceback or by the signal.
A command that loads a spec starts that make first thing, so that it runs beside the
imports. Imported by anything else (a test, a notebook), the signals are left alone.

May import: every other package and module of xtalk (the top layer, pyproject.toml).
"""
from __future__ import annotations

import os
import signal
import sys

from ..signals import ignore_interrupts, interrupt, keep_lost_interrupts

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
SPEC_COMMANDS = ("run", "spec", "calibrate", "channels", "search")  # they load a spec: the host's programs made


def settle_make() -> None:
    """The make started ahead, if any, ends with the command (images.artifacts.settle); a
    command that started none never imports images.artifacts (`xtalk list` needs none of it)."""
    artifacts = sys.modules.get("xtalk.images.artifacts")
    if artifacts is not None:
        artifacts.settle()


def _quit_while_starting(signum, frame):
    settle_make()
    os.write(2, b"xtalk: interrupted while starting; nothing was started\n")
    os._exit(130)


AS_COMMAND = os.path.basename(sys.argv[0]) in ("xtalk", "-m")  # `-m`: `python -m xtalk.cli.main` importing this


def take_signals() -> None:
    """main() from here on: Ctrl-C and SIGTERM raise KeyboardInterrupt, and one raised where
    Python cannot pass it on is noted (signals.keep_lost_interrupts)."""
    if AS_COMMAND:
        for stop in STOP_SIGNALS:
            signal.signal(stop, interrupt)
        keep_lost_interrupts()


def finished() -> None:
    """The command is done (its files whole): a Ctrl-C or SIGTERM from here on changes nothing."""
    if AS_COMMAND:
        ignore_interrupts()


if AS_COMMAND:
    # Arrow's buffers from the C allocator (main._lean_arrow_memory says why), said before
    # main.py's imports load Arrow: it reads the variable once, as it is imported, and the
    # parts of Arrow that allocate on their own (Parquet's reader and writer) keep that pool
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
    for stop in STOP_SIGNALS:
        signal.signal(stop, _quit_while_starting)
    if next((arg for arg in sys.argv[1:] if not arg.startswith("-")), None) in SPEC_COMMANDS:
        from ..images import artifacts
        artifacts.make_ahead()
