"""What every output parser is: console lines in; samples, metadata, begin, end and the
guest's outcome (pass, or fail with a reason) out. docs/guests.md says how to write one.

A parser is fed a guest's console line by line as it arrives (`feed(line, now_ns)`,
with the host CLOCK_MONOTONIC ns it arrived; now when not given, 0 when importing a log:
`parse_log`; screen.py makes the lines: newlines, carriage returns and cursor
addressing end one) and keeps what it learnt: `begin` (set once the guest starts measuring: the
run's time origin), `meta`, `metrics` (id -> name, unit, kind, kpi), `hist`, `errors`,
`end`; `take_samples()` drains the samples parsed so far (results.schema.SAMPLE_DTYPE).
`outcome()` is the verdict on the guest once the run is over.

xtalk's own guests speak XT (xt.py): their values are counter ticks at the frequency of
their BEGIN line. A foreign parser counts in nanoseconds (freq_hz = 1e9): times are
stored in ns, counts as printed, and a sample's t is the host time its line arrived
(or begin's t0 plus what the guest printed of its time; 0 when importing a log without
times). Class attributes tell the rest of xtalk what a parser offers: `benches` (the
benchmark names an image with this output may declare, for `spec check`; None: any),
`metric_names` (the metrics it can report, `<N>` standing for a number; None: not known before a run), `ends_itself`
(False: the guest runs until the run's duration, then the run ends and passes if it
measured; a parser may set it per instance from its options).
Helpers shared by foreign parsers: `plain()` (a console line without ANSI escapes and
carriage returns) and the Zephyr boot banner and fatal-error patterns.
Imports: the parsers are plug-ins, loaded by every command that reads a run's record
(`xtalk list` too), so NumPy is imported by the methods that make samples, not here.
"""
from __future__ import annotations

import math

import re
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:
    import numpy as np

FOREIGN_HZ = 1e9  # a foreign parser's values and times are in ns
UNIT_NS = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000}
# ESC [ ... final (CSI: colours, cursor moves) or ESC, intermediates, final (ESC c: reset)
ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|[ -/]*[0-~])")
ZEPHYR_BANNER = re.compile(r"\*\*\* Booting Zephyr OS build (\S+)")
# what Zephyr prints when it gives up: a fatal error (exceptions, k_panic, k_oops), a
# failed __ASSERT, or ztest's verdict on a failed test suite
ZEPHYR_FATAL = re.compile(r">>> ZEPHYR FATAL ERROR.*|ASSERTION FAIL.*|PROJECT EXECUTION FAILED")


def plain(line: str) -> str:
    """A console line without ANSI escape sequences, carriage returns and trailing blanks."""
    return ANSI.sub("", line).replace("\r", "").rstrip()


MAX_VALUE = 1 << 64  # a stored value or time: SAMPLE_DTYPE's unsigned 64 bits


@dataclass(frozen=True)
class Event:
    """One thing a console line said: BEGIN, META, METRIC, SAMPLE, HIST, ERROR or END."""

    kind: str
    fields: dict[str, str]

    @property
    def run(self) -> str | None:
        return self.fields.get("run")


class NoOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class OutputParser(ABC):
    name: ClassVar[str]
    summary: ClassVar[str]
    Options: ClassVar[type[BaseModel]] = NoOptions
    benches: ClassVar[tuple[str, ...] | None] = None
    metric_names: ClassVar[tuple[str, ...] | None] = None
    ends_itself: bool = True  # class default; a parser may set it per instance
    foreign: ClassVar[bool] = True

    def __init__(self, run_id: str | None = None, options: dict[str, Any] | None = None):
        self.run_id = run_id
        self.options = self.Options.model_validate(options or {})
        self.begin: dict[str, str] | None = None
        self.meta: dict[str, str] = {}
        self.metrics: dict[int, dict[str, str]] = {}
        self.hist: dict[int, dict[int, int]] = {}
        self.errors: list[dict[str, str]] = []
        self.end: dict[str, str] | None = None
        self._samples: list[tuple[int, int, int, int, int]] = []
        self._chunks: list[np.ndarray] = []  # samples recorded before the latest bulk record
        self._ids: dict[str, int] = {}
        self._seq = 0

    @classmethod
    def declared_metrics(cls, options: dict[str, Any]) -> tuple[str, ...] | None:
        """The metric names a guest with this output and these options can report (None:
        only the run tells); `spec check` holds deadlines and gates against them."""
        return cls.metric_names

    def awaited_begin(self) -> str:
        """What the run waits for to begin, for the reason of a run that never began."""
        return f"begin of output {self.name!r}"

    def feed(self, line: str, now_ns: int | None = None) -> Event | None:
        return self.parse(line.rstrip("\r\n"), time.monotonic_ns() if now_ns is None else now_ns)

    @abstractmethod
    def parse(self, line: str, now_ns: int) -> Event | None:
        """Take one line (no newline); the event it was, or None for anything else."""

    # -- what a foreign parser calls ---------------------------------------------------
    def began(self, now_ns: int, **fields: str) -> Event | None:
        """The guest started measuring (once; later calls return None)."""
        if self.begin is not None:
            return None
        self.begin = {"t0": str(now_ns), **fields}
        return Event("BEGIN", self.begin)

    def metric(self, name: str, unit: str, kind: str, **extra: str) -> int:
        """The id of metric `name`, declared on first use (unit: ns, count or cycles)."""
        if name not in self._ids:
            self._ids[name] = len(self._ids)
            self.metrics[self._ids[name]] = {"name": name, "unit": unit, "kind": kind, **extra}
        return self._ids[name]

    def sample(self, name: str, value: float, t_ns: int, unit: str = "ns", kind: str = "duration",
               flags: int = 0) -> Event:
        """Record one sample of metric `name`; a time in us/ms/s is stored in ns (flags bit
        0: the value is a lower bound, e.g. a histogram's overflow)."""
        ticks = round(value * UNIT_NS.get(unit, 1)) if math.isfinite(value) else -1
        if not 0 <= ticks < MAX_VALUE or not 0 <= t_ns < MAX_VALUE:
            return self.failed(f"a sample of {name} of {value:g} {unit} (time {t_ns} ns) cannot be stored: values "
                               f"and times are stored as whole numbers from 0 to 2^64 - 1")
        self._samples.append((self._seq, int(t_ns), ticks, self._metric_of(name, unit, kind), flags))
        self._seq += 1
        return Event("SAMPLE", {"metric": name, "value": str(ticks)})

    def samples(self, name: str, values: np.ndarray, t_ns: int, unit: str = "ns", kind: str = "duration",
                flags: int = 0) -> Event:
        """Record many samples of metric `name` at once (a histogram's worth), as sample()."""
        import numpy as np  # NumPy and the samples' dtype: once there are samples (imports, module docstring)

        from ..results.schema import SAMPLE_DTYPE
        self._flush()
        out = np.zeros(len(values), dtype=SAMPLE_DTYPE)
        out["seq"] = np.arange(self._seq, self._seq + len(values))
        out["t"] = int(t_ns)
        out["value"] = np.round(np.asarray(values, dtype=np.float64) * UNIT_NS.get(unit, 1))
        out["metric"] = self._metric_of(name, unit, kind)
        out["flags"] = flags
        self._chunks.append(out)
        self._seq += len(values)
        return Event("SAMPLE", {"metric": name, "count": str(len(values))})

    def _metric_of(self, name: str, unit: str, kind: str) -> int:
        return self.metric(name, "ns" if unit in UNIT_NS else unit, kind)

    def failed(self, message: str) -> Event:
        error = {"msg": message}
        self.errors.append(error)
        return Event("ERROR", error)

    def ended(self, **fields: str) -> Event | None:
        if self.end is not None:
            return None
        self.end = {"status": "pass", **fields}
        return Event("END", self.end)

    # -- what the runner reads ---------------------------------------------------------
    def take_samples(self) -> np.ndarray:
        """Samples parsed since the last call."""
        import numpy as np

        from ..results.schema import SAMPLE_DTYPE
        self._flush()
        out = np.concatenate(self._chunks) if self._chunks else np.zeros(0, dtype=SAMPLE_DTYPE)
        self._chunks.clear()
        return out

    def _flush(self) -> None:
        if self._samples:
            import numpy as np

            from ..results.schema import SAMPLE_DTYPE
            self._chunks.append(np.array(self._samples, dtype=SAMPLE_DTYPE))
            self._samples.clear()

    @property
    def sample_count(self) -> int:
        return self._seq

    @property
    def freq_hz(self) -> float | None:
        return FOREIGN_HZ

    @property
    def status(self) -> str | None:
        return (self.end or {}).get("status")

    def outcome(self, exit_code: int | None, reached_duration: bool = False) -> tuple[str, str]:
        """(pass | fail, reason) once the guest is done: it exited (exit_code), or the run
        reached its duration (reached_duration), or its end line came."""
        what = f"output {self.name!r}"
        if self.errors:
            return "fail", "guest reported: " + "; ".join(e.get("msg", "") for e in self.errors)
        if self.begin is None:
            return "fail", f"the guest printed nothing the {what} parser recognises"
        if not self._seq:
            return "fail", f"the guest printed no measurement the {what} parser recognises"
        if self.end is not None or (reached_duration and not self.ends_itself):
            return "pass", ""
        how = "the run reached its duration" if reached_duration else f"the guest exited (status {exit_code})"
        return "fail", f"{how} before the {what} parser saw its end"
