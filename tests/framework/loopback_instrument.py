"""`loopback`: a test-only instrument, kept outside xtalk's package to prove that an
instrument is one file which registers itself and owns its facts (docs/instruments.md).
It captures nothing: its "capture" is the host's clock from start to stop, with a stimulus
edge every `period_us` and its response `delay_us` later, so every delay a run stores is
known. Found the way a user's installed instrument is: an entry point in the group
`xtalk.instruments` (loopback_distribution).
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from tests.framework.plugin_distribution import installed
from xtalk.instruments.base import Capture, Instrument
from xtalk.plugins import INSTRUMENTS
from xtalk.results.run_record import InstrumentFacts


class LoopbackOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    period_us: int = Field(default=1000, gt=0)
    delay_us: int = Field(default=50, gt=0)


class LoopbackFacts(InstrumentFacts):
    device: str
    delay_samples: int  # a fact no instrument of xtalk's records


@INSTRUMENTS.register
class Loopback(Instrument):
    kind = "loopback"
    summary = "a test instrument: a stimulus every period_us, answered delay_us later, from the host's clock"
    Options = LoopbackOptions
    Facts = LoopbackFacts

    def start(self) -> None:
        self.start_ns = time.monotonic_ns()

    def stop(self) -> Capture:
        rate = float(self.settings.samplerate_hz)
        samples = int((time.monotonic_ns() - self.start_ns) * rate / 1e9)
        period, delay = (int(us * rate / 1e6) for us in (self.options.period_us, self.options.delay_us))
        stimulus = np.arange(period, samples - delay, period, dtype=np.int64)
        return Capture(stimulus=stimulus, response=stimulus + delay, samples=samples, rate_hz=rate,
                       start_ns=self.start_ns, align_ns=0, wanted_samples=samples,
                       facts={"device": "loopback", "delay_samples": delay})

    def close(self) -> None:
        pass


def loopback_distribution(where: Path) -> Path:
    """A directory that, on the Python path, is an installed distribution declaring this
    instrument in the entry point group xtalk finds instruments by."""
    return installed(where, "xtalk-loopback-instrument", {INSTRUMENTS.group: __name__})
