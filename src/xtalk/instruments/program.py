"""A capture program whose output xtalk reads: the source study's way (a capture timer in
the programmable logic timestamps both edges, a program in the Linux cell or dom0 reads
its start and stop registers and writes them out). `command` runs on this host for the
length of the run, in a process tree that ends with it and with xtalk (instruments/
reaper.py: no child it leaves, backgrounded, setsid or ignoring signals, outlives the run,
and a SIGKILLed xtalk leaves no capture running); a program this host does not have is
refused by `xtalk spec check`, before anything starts.
To read a capture in dom0 or on a board, run it there through ssh (`["ssh", "root@dom0",
"read-capture"]`). Its standard output is kept as the run's `instrument.txt` (the raw
evidence every delay comes from), its standard error as `instrument-stderr.txt`.

The output (`format`), ticks at `samplerate_hz` ticks a second, whole numbers:
- `edges`: an edge a line, `<channel> <tick>` or `<channel> <tick> <rising|falling>`, the
  channel named as [instrument] `stimulus` / `response` name it (other channels are
  skipped, but a channel must be a name the spec would take, of letters, digits and
  `_.-`: anything else is an error); an edge of unstated direction counts for any `*_edge`;
- `pairs`: a stimulus a line, `<start tick> <stop tick>`, or `<start tick> -` for a
  stimulus that got no response (a capture timer's start and stop registers).
Either may hold, a line each: `origin_ns <n>`, the host CLOCK_MONOTONIC ns of tick 0 (a
program on this host reads clock_gettime(CLOCK_MONOTONIC)); without it tick 0 is taken as
the moment the program was started, uncertain by what its start took (align_ns) and by
its own start-up, which xtalk cannot see. `dropped <n>`: the capture lost n events (a
FIFO overflowed): the run fails, edges may be missing. `#` comments and blank lines are
skipped; any other line is an error naming the file and the line.
Stopping: `stop_signal` to the program's group once the window closed, the whole tree
killed after `stop_timeout_s`. A program that ends by itself has said all it has; one that fails (a
status other than 0 or the stop signal's) fails the run with the end of its stderr.
"""
from __future__ import annotations

import shutil
import signal
import subprocess
import time
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..errors import InfrastructureError
from ..plugins import INSTRUMENTS
from ..results.run_record import InstrumentFacts
from ..spec.model import is_name
from . import reaper
from .base import Capture, Instrument

OUTPUT_FILE, STDERR_FILE = "instrument.txt", "instrument-stderr.txt"


class ProgramOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, defer_build=True)
    command: list[str] = Field(min_length=1, description="the capture program and its arguments, run on this host")
    format: Literal["edges", "pairs"] = Field(default="edges", description="edges: `<channel> <tick>` a line; "
                                              "pairs: `<start tick> <stop tick | ->` a line")
    stop_signal: Literal["SIGINT", "SIGTERM", "SIGUSR1"] = Field(default="SIGINT", description="what ends it")
    stop_timeout_s: float = Field(default=5.0, gt=0, le=600, description="how long it may take to end")

    @field_validator("command")
    @classmethod
    def _found(cls, command: list[str]) -> list[str]:
        if shutil.which(command[0]) is None:
            raise ValueError(f"{command[0]!r} is no program of this host (not on PATH; a path is taken from the "
                             "directory xtalk runs in)")
        return command


class ProgramFacts(InstrumentFacts):
    device: str | None = None  # "program <its command>"
    file: str | None = None  # its output, in the run's directory
    origin: str | None = None  # its tick 0: its origin_ns line, or its start


@INSTRUMENTS.register
class Program(Instrument):
    kind = "program"
    summary = "a capture program on this host (or through ssh in dom0 or on a board) whose output is read"
    Options = ProgramOptions
    Facts = ProgramFacts

    def __init__(self, settings, run_dir):
        super().__init__(settings, run_dir)
        self.process: subprocess.Popen | None = None
        self.asked_ns = self.began_ns = 0

    def start(self) -> None:
        self.asked_ns = time.monotonic_ns()
        try:
            with open(self.run_dir / OUTPUT_FILE, "wb") as out, open(self.run_dir / STDERR_FILE, "wb") as err:
                self.process = reaper.start(self.options.command, out, err)
        except OSError as err:
            raise InfrastructureError(f"instrument: the capture program {self.options.command[0]!r} did not start: "
                                      f"{err.strerror or err}") from None
        self.began_ns = time.monotonic_ns()

    def stop(self) -> Capture:
        stopped_ns = time.monotonic_ns()
        status = self._end()
        if status not in (0, -getattr(signal, self.options.stop_signal)):
            tail = (self.run_dir / STDERR_FILE).read_text(errors="replace").strip().splitlines()[-1:]
            raise InfrastructureError(f"instrument: the capture program {self.options.command[0]!r} failed (status "
                                      f"{status}){': ' + tail[0] if tail else ''}")
        read = read_output(self.run_dir / OUTPUT_FILE, self.settings, self.options.format)
        rate = float(self.settings.samplerate_hz)
        start_ns = read.origin_ns if read.origin_ns is not None else self.asked_ns
        length = max(read.last_tick + 1, int((stopped_ns - start_ns) * rate / 1e9))
        return Capture(stimulus=read.stimulus, response=read.response, samples=length, rate_hz=rate,
                       start_ns=start_ns, align_ns=0 if read.origin_ns is not None else self.began_ns - self.asked_ns,
                       wanted_samples=length, dropped=read.dropped,
                       facts={"device": f"program {self.options.command[0]}", "file": OUTPUT_FILE,
                              "origin": "origin_ns line" if read.origin_ns is not None else "program start"})

    def _end(self) -> int | None:
        """End the program (its whole tree) and return its status; None when never started."""
        process, self.process = self.process, None
        if process is None:
            return None
        return reaper.end(process, getattr(signal, self.options.stop_signal), self.options.stop_timeout_s)

    def close(self) -> None:
        try:
            self._end()
        except OSError:  # closing: the group is gone either way
            pass


class Read:
    """What a capture program wrote: both channels' edges in ticks, and what it said."""

    def __init__(self, stimulus: list[int], response: list[int], origin_ns: int | None, dropped: int):
        import numpy as np  # a plug-in: NumPy once there is a capture (instruments/base.py)
        self.stimulus, self.response = np.array(stimulus, np.int64), np.array(response, np.int64)
        self.origin_ns, self.dropped = origin_ns, dropped
        self.last_tick = int(max(self.stimulus.max(initial=0), self.response.max(initial=0)))


def read_output(path, settings, form: str) -> Read:
    """Parse a capture program's output (module docstring); an InfrastructureError names
    the file and the line of anything else."""
    stimulus: list[int] = []
    response: list[int] = []
    said: dict[str, int] = {}
    wanted = {settings.stimulus: (stimulus, settings.stimulus_edge), settings.response: (response, settings.response_edge)}
    with open(path, errors="replace") as lines:
        for number, line in enumerate(lines, 1):
            words = line.split("#", 1)[0].split()
            try:
                if not words:
                    continue
                if words[0] in ("origin_ns", "dropped") and len(words) == 2:
                    said[words[0]] = int(words[1])
                elif form == "pairs" and len(words) == 2:
                    start, stop = int(words[0]), None if words[1] == "-" else int(words[1])
                    if stop is not None and stop < start:
                        raise ValueError("the stop tick is before the start tick")
                    stimulus.append(start)
                    response.extend([] if stop is None else [stop])
                elif form == "edges" and len(words) in (2, 3) and words[2:] in ([], ["rising"], ["falling"]):
                    into, edge = wanted.get(words[0], (None, ""))
                    if into is None and not is_name(words[0]):
                        raise ValueError("not a channel name")
                    if into is not None and (edge == "both" or words[2:] in ([], [edge])):
                        into.append(int(words[1]))
                else:
                    raise ValueError("expected " + ("`<start tick> <stop tick>` or `<start tick> -`" if form == "pairs"
                                                    else "`<channel> <tick>` or `<channel> <tick> rising|falling`")
                                     + ", `origin_ns <n>` or `dropped <n>`")
            except ValueError as err:
                raise InfrastructureError(f"instrument: {path.name} line {number}: {err}: {line.strip()[:80]!r}") from None
    if any(tick < 0 for tick in stimulus + response):
        raise InfrastructureError(f"instrument: {path.name}: a negative tick")
    return Read(sorted(stimulus), sorted(response), said.get("origin_ns"), said.get("dropped", 0))
