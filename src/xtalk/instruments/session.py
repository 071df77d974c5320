"""An instrument through one run, as the runner drives it: started before the first
guest, stopped and stored once the measured window closed (or, after a failure or
Ctrl-C, when the guests are stopped: what it captured is kept), closed whatever happened.
Storing writes the delays to the run's samples, declares the metric (`metric`, for
meta.json's metrics) and records the facts (meta.json `instrument`); `problems` are
what fail the run (measure.py). Events: instrument_start, instrument_stop.
"""
from __future__ import annotations

import time

from ..errors import XtalkError
from ..results.store import RunWriter
from ..spec.model import InstrumentSettings
from . import create
from .measure import INSTRUMENT_METRIC, measured


class InstrumentSession:
    def __init__(self, settings: InstrumentSettings, writer: RunWriter):
        self.settings, self.writer = settings, writer
        self.instrument = create(settings, writer.path)
        self.started = self.stored = False
        self.metrics: dict[str, dict] = {}  # what meta.json's metrics gain: the instrument's
        self.problems: list[str] = []

    def start(self) -> None:
        self.instrument.start()
        self.started = True
        self.writer.event("instrument_start", time.monotonic_ns(), instrument=self.settings.kind)

    def store(self, origin_ns: int | None, end_ns: int | None) -> None:
        """Stop the capture and store what it says of the measured window, from origin_ns
        to end_ns (host ns; None: never began, never closed); once, a later call does nothing."""
        if not self.started or self.stored:
            return
        self.stored = True
        try:
            capture = self.instrument.stop()
        except XtalkError as err:
            self.problems.append(str(err))
            return
        self.writer.event("instrument_stop", time.monotonic_ns(), samples=capture.samples)
        result = measured(self.settings, capture, (origin_ns, end_ns))
        self.writer.samples(result.samples)
        self.metrics = {str(INSTRUMENT_METRIC): result.metric}
        self.writer.save_meta(instrument=result.facts)
        self.problems += result.problems

    def close(self) -> None:
        self.instrument.close()
