"""`xtalk` entry point. Exit codes: 0 ok, 1 a KPI gate failed (calibrate: cannot measure),
2 bad spec or usage, 3 infrastructure failure (runs that failed, store, host, disk), 130 interrupted (Ctrl-C /
SIGTERM). Every error is one `xtalk: error: ...` message without a traceback (--debug
shows it)."""
from __future__ import annotations

import argparse
import atexit
import contextlib
import functools
import gc
import importlib
import os
import pkgutil
import sys
import threading
import traceback

from .. import __version__
from ..errors import EXIT_INFRASTRUCTURE, EXIT_OK, XtalkError, describe_failure
from ..plugins import BACKENDS
from ..signals import CampaignInterrupted, ignore_interrupts, interrupt_raised, lost_interrupts, sigterm_as_interrupt
from . import finished, settle_make, take_signals
from .common import OUT_ENV, STOPPED_EARLY, HelpFormatter, examples_text


@functools.cache
def command_names() -> tuple[str, ...]:
    """Every command: a module cli/<command>_cmd.py, found by its name and imported only
    when it is the command asked for or the whole list is (help, a usage error): ~0.1 s
    less at every start. Its ORDER places it in `xtalk --help`."""
    return tuple(m.name.removesuffix("_cmd") for m in pkgutil.iter_modules(importlib.import_module(__package__).__path__)
                 if m.name.endswith("_cmd"))


def command_module(name: str):
    return importlib.import_module(f"{__package__}.{name}_cmd")


TOP_EXAMPLES = ("xtalk spec check experiments/quickstart.toml", "xtalk run experiments/quickstart.toml --report",
            "xtalk show quickstart")
ENDING = f"""exit codes: 0 ok, 1 a KPI gate failed (calibrate: this setup cannot measure, its last
  sentence says why), 2 bad spec or usage, 3 infrastructure failure (runs that failed, store,
  host, disk), 130 interrupted.
environment: {OUT_ENV} the results directory when --out is not given (default results/)."""
EXIT_BROKEN_PIPE = EXIT_OK  # `xtalk ... | head`: the reader had what it wanted; quietly, not a failure


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """xtalk's parser: every command, or only the command `only`."""
    parser = argparse.ArgumentParser(
        prog="xtalk", description="Measure how much a critical guest's timing suffers from the guests next to it "
        "(temporal isolation between virtual machines): run campaigns, report verdicts. "
        "`xtalk COMMAND --help` tells a command's options, with examples.",
        epilog=examples_text(TOP_EXAMPLES, ENDING), formatter_class=HelpFormatter)
    parser.add_argument("--version", action="version", version=f"xtalk {__version__}")
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error")
    parser.set_defaults(interrupted=STOPPED_EARLY)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    modules = [command_module(name) for name in (command_names() if only is None else (only,))]
    for module in sorted(modules, key=lambda m: m.ORDER):
        module.add_parser(sub)
    return parser


def _command_of(argv: list[str]) -> str | None:
    """The command the arguments name (xtalk's own options take no value), when it is one."""
    first = next((arg for arg in argv if not arg.startswith("-")), None)
    return first if first in command_names() else None


def _error(message: str, code: int, debug: bool) -> int:
    from ..controls import printable
    if debug:
        traceback.print_exc()
    print(f"xtalk: error: {printable(str(message))}", file=sys.stderr)
    return code


def _campaign_stopped(stop: BaseException | None) -> CampaignInterrupted | None:
    """The CampaignInterrupted behind `stop`: itself, or the one being passed on when a
    further Ctrl-C or SIGTERM raised `stop` (a leases' release, a handler on the way out)."""
    while stop is not None and not isinstance(stop, CampaignInterrupted):
        stop = stop.__context__
    return stop


def _interrupted(args, stop: KeyboardInterrupt) -> str:
    """What was kept; for a campaign, which one and the command that goes on with it."""
    if (stopped := _campaign_stopped(stop)) is None:
        return args.interrupted
    told = f"{args.interrupted} in campaign {stopped.campaign.name} ({stopped.campaign})"
    go_on = getattr(args, "resume_command", None)
    return f"{told}; continue it with: {go_on(args)}" if go_on else told


def _lean_arrow_memory() -> None:
    """Arrow's buffers from the C library's allocator unless ARROW_DEFAULT_MEMORY_POOL names
    one: mimalloc, the wheels' default, kept 20-35 MB resident after each pass over a run's
    samples (finalising, analysing, copying them), a third of `xtalk report`'s peak above
    what its imports take, at the same speed (benchmarks/bench_memory.py, bench_analysis.py).
    Said through the variable Arrow reads when it is imported, so that this module need not
    import Arrow itself, and to Arrow itself where it already is."""
    if not os.environ.get("ARROW_DEFAULT_MEMORY_POOL"):
        os.environ["ARROW_DEFAULT_MEMORY_POOL"] = "system"
        if arrow := sys.modules.get("pyarrow"):
            arrow.set_memory_pool(arrow.system_memory_pool())


def _link_lab() -> None:
    """The xen backend's executor "lab" (the backends do not import the lab), once the xen
    backend is loaded: a command that does not load it imports neither."""
    from ..lab import xen_link
    xen_link.install()


def main(argv: list[str] | None = None) -> int:

    take_signals()
    argv = sys.argv[1:] if argv is None else argv
    try:
        return _main(argv)
    finally:
        settle_make()  # the make started ahead (cli/__init__.py), when it is still going


def _main(argv: list[str]) -> int:
    args = build_parser(_command_of(argv)).parse_args(argv)
    _lean_arrow_memory()
    BACKENDS.when_loaded("xen", _link_lab)
    try:
        with sigterm_as_interrupt():
            code = args.handler(args)
        finished()
        if lost_interrupts():
            print("xtalk: interrupted as it finished; what it wrote is whole", file=sys.stderr)
            return 130
        return code
    except XtalkError as e:
        return _error(str(e), e.exit_code, args.debug)
    except KeyboardInterrupt as stop:
        ignore_interrupts()  # everything is cleaned up: a further Ctrl-C must not end xtalk by the signal
        print(f"xtalk: interrupted; {_interrupted(args, stop)}", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `xtalk query ... | head`: nobody reads the rest
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except OSError as e:  # a full disk, a read-only results directory, ...
        where = f"{e.filename}: " if e.filename else ""
        return _error(f"{where}{e.strerror or e}", EXIT_INFRASTRUCTURE, args.debug)
    except Exception as e:  # noqa: BLE001 - a bug or a case xtalk does not know: one line, --debug for more
        if interrupt_raised():  # a Ctrl-C or SIGTERM that a library wrapped in an error of its own
            ignore_interrupts()
            print(f"xtalk: interrupted; {_interrupted(args, KeyboardInterrupt())}", file=sys.stderr)
            return 130
        return _error(describe_failure(e), EXIT_INFRASTRUCTURE, args.debug)


def entry() -> None:
    """The `xtalk` command: main(), with the garbage collector told that what is there
    before and after it stays (gc.freeze): the hundreds of thousands of objects the imports
    made are not walked by each full collection while it runs (~0.15 s, more than a tenth of
    a short campaign's overhead). What calls main() in its own process (tests) keeps its
    usual collector and exit."""
    gc.freeze()
    _exit(main())


def _exit(code: int) -> None:
    """End the process without Python's teardown of every module (~15 ms: NumPy's and
    Arrow's threads, the imports' objects), after what that teardown would do that counts:
    threads that are not daemons ended, atexit's functions run, the standard streams flushed."""
    for thread in threading.enumerate():
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a reader gone: nothing more to tell it
            stream.flush()
    os._exit(code)


if __name__ == "__main__":
    entry()
