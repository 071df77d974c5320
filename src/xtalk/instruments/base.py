"""What every instrument is: something outside the guests that captures a stimulus
channel and a response channel at one sample rate for the length of a run.

An instrument class registers itself with `@INSTRUMENTS.register` (xtalk.plugins) under
its `kind`, in a module of this package or of an entry point (xtalk.instruments finds
them, as xtalk.parsers finds the parsers): a new instrument is one file plus its test. The runner starts it before the first guest and
stops it once the measured window closed (`start`, `stop`); `close` is idempotent and
always called, whatever happened. `stop` returns the Capture: the edges of both
channels as sample indices, the number of samples, and where sample 0 lies on the host's
CLOCK_MONOTONIC (to within `align_ns`: how long the instrument took to say it began).
Its own options are a pydantic model (`Options`) that `xtalk spec check` validates.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict

from ..results.run_record import InstrumentFacts
from ..spec.model import InstrumentSettings

if TYPE_CHECKING:  # the instruments are plug-ins, loaded by every command that reads a run's record
    import numpy as np


class NoOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


@dataclass(frozen=True)
class Capture:
    """A finished capture: both channels' edges (sample indices, ascending)."""

    stimulus: np.ndarray
    response: np.ndarray
    samples: int           # how many samples the capture holds
    rate_hz: float
    start_ns: int          # host CLOCK_MONOTONIC of sample 0 (the latest it can be)
    align_ns: int          # sample 0 lies at most this long before start_ns
    wanted_samples: int    # what the time it ran should have given at rate_hz
    facts: dict[str, Any]  # the instrument's own (device, command, file): its class's Facts
    dropped: int = 0       # events the instrument says it lost (a capture program's FIFO overflow)


class Instrument(ABC):
    kind: ClassVar[str]
    summary: ClassVar[str]
    Options: ClassVar[type[BaseModel]] = NoOptions
    # a run's record of its capture (meta.json `instrument`): the common keys and its own
    # facts (Capture.facts), a subclass of InstrumentFacts with them
    Facts: ClassVar[type[InstrumentFacts]] = InstrumentFacts

    def __init__(self, settings: InstrumentSettings, run_dir: Path):
        self.settings, self.run_dir = settings, run_dir
        self.options = self.Options.model_validate(settings.options)

    @abstractmethod
    def start(self) -> None:
        """Begin capturing; returns once the instrument captures."""

    @abstractmethod
    def stop(self) -> Capture:
        """End the capture and read it (InfrastructureError naming what failed)."""

    @abstractmethod
    def close(self) -> None:
        """Release everything (a capture still going is ended); idempotent, never raises."""
