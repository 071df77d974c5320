"""The four kinds of failure xtalk tells apart, and the exit code each maps to.

SpecError: the user's input is wrong (all problems at once, before anything boots).
UsageError: a command line or input file xtalk cannot take (one line, nothing was done).
InfrastructureError: host, hypervisor, console or store failed.
GuestError: a guest reported a fault or never reported.
MeasurementError: data lost or unstable; recorded, and the campaign goes on.
RunAborted: an unexpected exception during a run (a full disk, a bug): the run is stored
as 'error' with the cause (describe_failure) and the campaign stops; --resume goes on.
"""
import difflib
import errno
import re
from collections.abc import Iterable
from dataclasses import dataclass

EXIT_OK = 0
EXIT_GATE_FAILED = 1
EXIT_USAGE = 2
EXIT_INFRASTRUCTURE = 3


def did_you_mean(word: object, choices: Iterable[object]) -> str:
    """' (did you mean X?)' with the closest choice, or '' when none is close: difflib's
    closest match, else the one choice that abbreviates the word or that the word
    abbreviates (membw for mem_bandwidth: the same first letter, the rest in order)."""
    names, said = sorted({str(c) for c in choices}), str(word)
    close = difflib.get_close_matches(said, names, n=1, cutoff=0.6)
    if not close:
        close = [n for n in names if _abbreviates(n, said) or _abbreviates(said, n)]
    return f" (did you mean {close[0]}?)" if len(close) == 1 else ""


def _abbreviates(short: str, long: str) -> bool:
    short, long = (re.sub(r"[^a-z0-9]", "", w.lower()) for w in (short, long))
    if not 2 <= len(short) < len(long) or short[0] != long[0]:
        return False
    rest = iter(long)
    return all(letter in rest for letter in short)


class XtalkError(Exception):
    exit_code = EXIT_INFRASTRUCTURE


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a spec: where (field path, file line) and what."""

    path: str
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = self.path or "(top level)"
        if self.line:
            where += f" (line {self.line})"
        return f"{where}: {self.message}"


class SpecError(XtalkError):
    exit_code = EXIT_USAGE

    def __init__(self, source: str, problems: list[Problem]):
        self.source = source
        self.problems = problems
        lines = "\n".join(f"  - {p}" for p in problems)
        super().__init__(f"{source}: {len(problems)} problem(s)\n{lines}")


class UsageError(XtalkError):
    exit_code = EXIT_USAGE


class InfrastructureError(XtalkError):
    exit_code = EXIT_INFRASTRUCTURE


class GuestError(XtalkError):
    exit_code = EXIT_INFRASTRUCTURE


class MeasurementError(XtalkError):
    exit_code = EXIT_INFRASTRUCTURE


class RunAborted(InfrastructureError):
    """A run ended by an exception nobody expected; `stored`: whether its record says so."""

    def __init__(self, run_id: str, cause: str, stored: bool = True):
        self.run_id, self.cause = run_id, cause
        kept = "" if stored else " (its record could not be written: --resume redoes it)"
        super().__init__(f"run {run_id}: {cause}{kept}; the campaign stopped there "
                         "(free the cause, then `xtalk run SPEC --resume` finishes it)")


DISK_ERRORS = {errno.ENOSPC: "disk full", errno.EDQUOT: "disk quota exceeded", errno.EROFS: "read-only file system",
               errno.EIO: "I/O error"}


def describe_failure(err: BaseException) -> str:
    """One line for an exception nobody expected, led by its kind where a user can act on it
    (a full disk, also behind an XtalkError that names the file)."""
    cause = err if isinstance(err, OSError) else err.__cause__
    kind = DISK_ERRORS.get(getattr(cause, "errno", None))
    if isinstance(err, (OSError, XtalkError)):
        kind = kind or ("" if isinstance(err, XtalkError) else type(err).__name__)
        return f"{kind}: {err}" if kind else str(err)
    first = str(err).strip().splitlines()[:1]
    return f"unexpected {type(err).__name__}{': ' + first[0] if first else ''} (a bug; --debug shows where)"
