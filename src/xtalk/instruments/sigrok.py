"""A logic analyser through sigrok, driven by labgrid's SigrokDriver: the device is a
sigrok driver on this host (`driver`: "demo", "fx2lafw", "fx2lafw:conn=1.5"), or the
sigrok resource of a labgrid place (`place`, at `coordinator`: SigrokDevice,
SigrokUSBDevice or NetworkSigrokUSBDevice, the last captured on its exporter over ssh),
which the instrument acquires for the run and releases after it.

Only the two channels (stimulus, response) are captured (the response alone with
period_ns). `config` is the device's own
settings (the demo device's `pattern`, a threshold), given to sigrok-cli's --config with
the sample rate (labgrid passes that one string). The capture file, sigrok's .sr, is kept
in the run directory (`instrument.sr`): the raw evidence every delay comes from.
Caveats: labgrid's SigrokDriver.stop() turns the whole capture into CSV and reads it into
memory, a row a sample: keep a capture to some 1e7 samples (duration_s x samplerate_hz).
The capture is placed on the host's clock from its end: its last sample was taken when
the stop was asked, so sample 0 lies the capture's length before that, and not before
the capture was asked for; what lies between is the alignment's uncertainty (align_ns:
sigrok-cli's start, labgrid's look for its file every 0.1 s; a device slower than its
rate makes it larger). The delays themselves are exact to one sample period. A place left acquired
by an xtalk that was SIGKILLed stays acquired (labgrid-client release frees it).
"""
from __future__ import annotations

import os
import time
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..errors import InfrastructureError
from ..plugins import INSTRUMENTS
from ..results.run_record import InstrumentFacts
from .base import Capture, Instrument

CAPTURE_FILE = "instrument.sr"
SIGROK_RESOURCES = ("SigrokDevice", "SigrokUSBDevice", "NetworkSigrokUSBDevice")
DEFAULT_COORDINATOR = "127.0.0.1:20408"


class SigrokOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, defer_build=True)
    driver: str | None = Field(default=None, description="a sigrok driver on this host, with its options "
                               "(demo, fx2lafw:conn=1.5)")
    place: str | None = Field(default=None, description="a labgrid place with a sigrok resource")
    coordinator: str | None = Field(default=None, description="the labgrid coordinator of `place` (default: "
                                    f"LG_COORDINATOR, else {DEFAULT_COORDINATOR})")
    channel_group: str | None = Field(default=None, description="the device's channel group (sigrok-cli -g)")
    config: dict[str, str | int | float | bool] = Field(
        default_factory=dict, description="the device's settings, e.g. the demo device's pattern")

    @model_validator(mode="after")
    def one_device(self) -> "SigrokOptions":
        if (self.driver is None) == (self.place is None):
            raise ValueError("give exactly one of driver (a device on this host) or place (a labgrid place's)")
        if self.coordinator is not None and self.place is None:
            raise ValueError("coordinator is the labgrid coordinator of a place: give place too")
        return self


class SigrokFacts(InstrumentFacts):
    device: str | None = None  # the analyser: a device here or a labgrid place's
    file: str | None = None  # the capture, in the run's directory


@INSTRUMENTS.register
class Sigrok(Instrument):
    kind = "sigrok"
    summary = "a logic analyser through sigrok-cli, by labgrid's SigrokDriver (a device here or a labgrid place's)"
    Options = SigrokOptions
    Facts = SigrokFacts

    def __init__(self, settings, run_dir):
        super().__init__(settings, run_dir)
        self.driver = self.target = None
        self.held: str | None = None  # the place acquired, until released
        self.capturing = False
        self.asked_ns = self.began_ns = 0
        self.where = ""

    # -- the device ---------------------------------------------------------------
    def _coordinator(self) -> str:
        return self.options.coordinator or os.environ.get("LG_COORDINATOR") or DEFAULT_COORDINATOR

    def _lab(self):
        """A session with the labgrid coordinator (labgrid, gRPC: imported only for a place)."""
        from ..remote.coordinator import Coordinator
        return Coordinator(self._coordinator())

    def _resource(self) -> tuple[str, dict[str, Any]]:
        """(labgrid resource class, its arguments) of the device; a place is acquired."""
        if self.options.driver is not None:
            self.where = f"sigrok driver {self.options.driver}"
            return "SigrokDevice", {"driver": self.options.driver}
        place = self.options.place
        self.where = f"labgrid place {place}"
        with self._lab() as lab:
            lab.select([place], {}, "instrument.sigrok.place")
            lab.acquire(place)
            self.held = place
            found = [(cls, dict(args)) for r in lab.resources(place) for cls, args in r.items() if cls in SIGROK_RESOURCES]
        if not found:
            raise InfrastructureError(f"labgrid place {place} has no sigrok resource ({', '.join(SIGROK_RESOURCES)})")
        return found[0]

    def start(self) -> None:
        from labgrid import target_factory  # labgrid (~0.2 s): only for a run with this instrument

        cls, args = self._resource()
        args = {k: v for k, v in args.items() if k not in ("channels", "channel_group", "name")}
        args["channels"] = ",".join(self._channels())
        if self.options.channel_group:
            args["channel_group"] = self.options.channel_group
        self.target = target_factory.make_target(f"xtalk-instrument-{self.run_dir.name}", {
            "resources": [{cls: args}], "drivers": [{"SigrokDriver": {}}]})
        settings = ":".join([str(self.settings.samplerate_hz)]
                            + [f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in self.options.config.items()])
        self.asked_ns = time.monotonic_ns()
        try:
            self.driver = self.target.get_driver("SigrokDriver")
            self.driver.capture(str(self.run_dir / CAPTURE_FILE), samplerate=settings)
        except Exception as err:  # noqa: BLE001 - sigrok-cli's or labgrid's own error, named
            raise self._failed("the capture did not start", err) from None
        self.capturing, self.began_ns = True, time.monotonic_ns()

    def stop(self) -> Capture:
        import numpy as np  # a plug-in: NumPy once there is a capture (instruments/base.py)

        from .edges import edges_of
        stopped_ns = time.monotonic_ns()
        self.capturing = False
        try:
            rows = self.driver.stop()
        except Exception as err:  # noqa: BLE001 - as in start
            raise self._failed("the capture could not be read", err) from None
        levels = {ch: np.fromiter((row[ch] == "1" for row in rows), bool, len(rows)) for ch in self._channels()}
        stim, resp = self.settings.stimulus, self.settings.response
        rate = float(self.settings.samplerate_hz)
        # the last sample was taken as the stop was asked: sample 0 that long before, and not before the start was
        start_ns = max(self.asked_ns, stopped_ns - int(len(rows) * 1e9 / rate))
        return Capture(stimulus=edges_of(levels[stim], self.settings.stimulus_edge) if stim else np.zeros(0, np.int64),
                       response=edges_of(levels[resp], self.settings.response_edge),
                       samples=len(rows), rate_hz=rate, start_ns=start_ns, align_ns=start_ns - self.asked_ns,
                       wanted_samples=int((stopped_ns - self.began_ns) * rate / 1e9),
                       facts={"device": self.where, "file": CAPTURE_FILE})

    def _channels(self) -> list[str]:
        return [ch for ch in (self.settings.stimulus, self.settings.response) if ch]

    def _failed(self, what: str, err: Exception) -> InfrastructureError:
        return InfrastructureError(f"instrument ({self.where}): {what}: {type(err).__name__}: {err}")

    def close(self) -> None:
        try:
            if self.capturing:  # a run that ended before its window closed: sigrok-cli is ended
                self.capturing = False
                self.driver.stop()
        except Exception:  # noqa: BLE001 - closing: sigrok-cli is gone either way
            pass
        try:
            if self.target is not None:
                self.target.deactivate_all_drivers()
        except Exception:  # noqa: BLE001 - as above
            pass
        self.driver = self.target = None
        if self.held is not None:
            place, self.held = self.held, None
            try:
                with self._lab() as lab:
                    lab.release([place], [])
            except InfrastructureError:
                pass
