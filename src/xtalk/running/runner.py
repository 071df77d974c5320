"""Drive one run through its lifecycle, whatever happens: prepare, start guests in the
spec's order, apply the timeline at exact times, collect console and ring as they
arrive (the ring's slots straight into samples.bin: RingReader.move_to; between two reads
of the rings the collector waits POLL_S for the consoles, less when samples come fast
enough to fill a ring: ring_poll_s), and always stop every guest and store the outcome. Host stressors run on the
backend's host_backend() (native processes next to the guests); every call for a
guest goes to the backend that started it (handle.backend).

The measurer's console goes through its output parser (xtalk.parsers; `xt` for
xtalk's own guests). Time origin of a run: the parser's begin (`XT BEGIN`), so a slow
boot (firmware, a Linux kernel) neither eats into the measured time nor makes timeline
events fire before the measurer runs. For XT it is placed on the guest's own clock:
BEGIN carries the counter (t0), and the ring's heartbeat pairs map guest counter to host
CLOCK_MONOTONIC (the smallest host-read minus guest-write offset); until the first pair,
the host time the line arrived stands in. A foreign parser stamps with host time: one
clock pair (now, now) says so. A run ends on the parser's end (`XT END`), on the
measurer's exit, at the run's duration for a parser whose guest never ends by itself,
or on the watchdog: duration + grace after the begin, or boot_timeout after the measurer
was started while no begin came (the reason then says what the measurer's console
showed: bytes and last text). Consoles are split into lines by parsers/screen.py
(newlines, carriage returns, cursor addressing). Ctrl-C / SIGTERM stop the guests,
store the run as 'interrupted' with everything recorded so far, and propagate. The stressors are watched over the
measured window (watch.py): one that dies, exits, is stopped behind xtalk's back,
stalls, or ignores a timeline event fails the run (or degrades it: run.stressor_failure);
their passes over that window give the pressure each achieved (pressure.py).
A spec's [instrument] (xtalk.instruments) captures from before the first guest starts
until the window closes; its delays are stored as samples of its own metric, and a
capture without edges or short of samples fails the run.
An unexpected exception (a full disk, a bug) ends the run as 'error' with a one-line
cause, stops every guest, and raises RunAborted: the campaign stops there.
"""
from __future__ import annotations

import os
import select
import time
from typing import Callable

from ..backends.base import Backend, GuestHandle
from .ahead import Launched, guest_owners, stop_unstarted
from .. import parsers
from ..parsers.screen import ConsoleLines
from ..errors import RunAborted, XtalkError, describe_failure
from ..host.noise import NoiseMeter
from ..instruments.session import InstrumentSession
from ..spec.plan import GuestPlan, RunPlan
from .pressure import PressureMeter
from .run_record import record
from ..results.store import RunWriter
from ..signals import deferred_interrupts, interrupt_raised
from .watch import StressorWatch

POLL_S = 0.01
RING_SLACK = 8  # the collector waits at most 1/RING_SLACK of the time the ring takes to fill
AFTER_END_S = 2.0  # how long a guest may take to exit after XT END
INTERRUPTED = "interrupted by the user (Ctrl-C or SIGTERM)"  # a run's reason when a signal stopped it


class RunState:
    def __init__(self, backend: Backend, run: RunPlan, writer: RunWriter, launched: Launched | None = None):
        self.run, self.writer = run, writer
        # each guest's backend; the distinct ones are prepared and cleaned up per run
        self.owners = guest_owners(backend, run)
        self.backends = list({id(b): b for b in self.owners.values()}.values())
        self.launched = launched  # its guests launched ahead of it (ahead.py), held paused
        self.ahead: dict[str, GuestHandle] = dict(launched.handles) if launched else {}  # not yet started
        self.said: dict[int, dict] = {}  # metadata() of its backends that launch ahead, by id, taken at its end
        self.handles: dict[str, GuestHandle] = {}
        self.consoles: dict[str, ConsoleLines] = {}  # each guest's console, split into lines
        self.report = parsers.create(run.measurer.output, run.run_id, run.measurer.parser)
        self.origin_ns: int | None = None  # measurer start, then its BEGIN (see above)
        self.begun = False
        self.begin_counter: int | None = None
        self.declared = 0  # metrics saved in meta.json so far
        self.offset_ns: float | None = None  # host ns - guest ns, smallest seen
        self.pairs: list[tuple[int, int]] = []  # (host ns, heartbeat) before the frequency is known
        self.last_heartbeat = 0
        self.ring_read_at: float | None = None  # time.monotonic() of the last ring read
        self.ring_rate = 0.0  # samples per second the rings brought from one read to the next
        self.stopped: set[str] = set()
        self.held: set[str] = set()  # started paused, waiting for their timeline 'start'
        self.noise = NoiseMeter(list(run.spec.cpus)) if backend.measures_local_cpus else None
        self.watch = StressorWatch(run, writer, self.rel_s)
        self.pressure = PressureMeter([g.name for g in run.stressors])
        self.instrument = InstrumentSession(run.spec.instrument, writer) if run.spec.instrument else None

    def pids(self) -> list[int]:
        return [pid for h in self.handles.values() for pid in h.pids]

    def rel_s(self, ns: int) -> float | None:
        return None if self.origin_ns is None else (ns - self.origin_ns) / 1e9

    def start(self, guest: GuestPlan, paused: bool = False) -> None:
        """Start a guest, or resume the one launched ahead for it (unless it is to be held)."""
        handle = self.ahead.pop(guest.name, None)
        ready = {}
        if handle is None:
            handle = self.owners[guest.name].start(guest, self.run, paused=paused)
            handle.backend = self.owners[guest.name]
        else:
            ready = {"prepared_ns": self.launched.launched_ns}
            if not paused:
                handle.backend.resume(handle)
        now = time.monotonic_ns()
        self.handles[guest.name] = handle
        if paused:
            self.held.add(guest.name)
        if guest.role == "measurer":
            self.origin_ns = now
            self.writer.save_meta(origin_host_ns=now)
        else:
            self.watch.started(guest.name, now, running=not paused)
            self.pressure.started(guest.name, handle.passes, handle.no_passes or
                                  f"the {handle.backend.name} backend counts no stressor passes")
        facts = type(self.owners[guest.name]).GuestFacts.model_validate(handle.facts).dump()
        self.writer.event("guest_start", now, guest=guest.name, t_s=self.rel_s(now) if self.begun else None,
                          paused=paused, **ready, **facts)

    def console(self, name: str, data: bytes) -> None:
        self.writer.console(name, data)
        self._lines(name, self.consoles.setdefault(name, ConsoleLines()).feed(data, time.monotonic_ns()))

    def settle_consoles(self, now: int, final: bool = False) -> None:
        """Pass on what screens drew last once they are quiet (every unfinished line: final)."""
        for name, console in self.consoles.items():
            self._lines(name, console.flush() if final else console.settled(now))

    def _lines(self, name: str, lines: list[str]) -> None:
        for line in lines:
            if self.handles[name].plan.role == "measurer":
                self._measurer_line(line)
            else:
                self.watch.line(name, line)

    def metrics(self) -> dict[str, dict]:
        """meta.json's metrics: the measurer's, and an instrument's once it stored its samples."""
        return {str(k): v for k, v in self.report.metrics.items()} | (self.instrument.metrics if self.instrument else {})

    def store_instrument(self, end_ns: int | None = None) -> None:
        """The instrument's capture of the measured window (up to end_ns: its close; None:
        it never closed) into the run, once; its metric into meta.json's."""
        if self.instrument is not None and not self.instrument.stored:
            self.instrument.store(self.origin_ns if self.begun else None, end_ns)
            self.writer.save_meta(metrics=self.metrics())

    def console_seen(self) -> str:
        """What the measurer's console showed, for the reason of a run that hung."""
        console = self.consoles.get("measurer")
        if console is None or not console.received:
            return "console: nothing received"
        text = console.last_text
        text = text if len(text) <= 80 else text[:77] + "..."
        return f"console: {console.received:,} bytes, last text: {text!r}"

    def _measurer_line(self, line: str) -> None:
        rec = self.report.feed(line)
        if self.report.begin is not None and not self.begun:  # a BEGIN, or a line that began and sampled
            now = time.monotonic_ns()
            self.begun, self.origin_ns = True, now
            t0 = self.report.begin.get("t0")
            self.begin_counter = int(t0) if t0 and t0.isdigit() else None
            self.writer.save_meta(origin_host_ns=now, begin_counter=self.begin_counter)
            self.writer.event("measurer_begin", now)
            self.watch.open(now)
            self.pressure.open(now)
            self._refine_origin()
            if self.report.foreign:  # its t and t0 are host ns: guest clock = host clock
                self.writer.clock(now, now)
        if rec and (rec.kind in ("BEGIN", "METRIC") or len(self.report.metrics) != self.declared):
            self.declared = len(self.report.metrics)  # a foreign parser declares a metric on its first sample
            self.writer.save_meta(metrics=self.metrics(), freq_hz=self.report.freq_hz, guest_begin=self.report.begin)
        samples = self.report.take_samples()  # any line may carry samples (a parser's BEGIN or END too)
        if len(samples):
            self.writer.samples(samples)

    def read_consoles(self, timeout: float) -> None:
        fds = {h.console_fd: n for n, h in self.handles.items() if h.console_fd is not None}
        if not fds:
            time.sleep(max(timeout, 0))
            return
        ready, _, _ = select.select(list(fds), [], [], max(timeout, 0))
        for fd in ready:
            try:
                data = os.read(fd, 1 << 16)
            except (BlockingIOError, InterruptedError):
                continue
            if data:
                self.console(fds[fd], data)
        self.settle_consoles(time.monotonic_ns())

    def read_ring(self) -> None:
        now, moved = time.monotonic(), 0
        for handle in self.handles.values():
            if handle.ring is None:
                continue
            while True:  # all that is waiting, straight into samples.bin: one move takes at most MAX_BATCH slots
                batch = handle.ring.move_to(self.writer)
                moved += batch.stored
                if not batch.more:
                    break
            if batch.heartbeat != self.last_heartbeat:
                host_ns = time.monotonic_ns()
                self.last_heartbeat = batch.heartbeat
                self.writer.clock(host_ns, batch.heartbeat)
                self.pairs.append((host_ns, batch.heartbeat))
                self._refine_origin()
        if self.ring_read_at is not None and now > self.ring_read_at:
            self.ring_rate = moved / (now - self.ring_read_at)
        self.ring_read_at = now

    def poll_s(self) -> float:
        """How long the collector may wait for the consoles before it reads the rings again (ring_poll_s)."""
        return ring_poll_s(min((h.ring.capacity for h in self.handles.values() if h.ring is not None), default=0),
                           self.ring_rate)

    def _refine_origin(self) -> None:
        """Move the origin to BEGIN's t0 on the guest clock once the mapping is known."""
        freq = self.report.freq_hz
        if not freq:
            return
        for host_ns, counter in self.pairs:
            offset = host_ns - counter * 1e9 / freq
            self.offset_ns = offset if self.offset_ns is None else min(self.offset_ns, offset)
        self.pairs.clear()
        if self.begun and self.begin_counter is not None and self.offset_ns is not None:
            self.origin_ns = min(self.origin_ns, int(self.begin_counter * 1e9 / freq + self.offset_ns))

    def pump(self, seconds: float, until: Callable[[], bool] = lambda: False) -> None:
        """Collect (consoles, ring) for a while, or until `until()`, instead of sleeping."""
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0 and not until():
            self.read_consoles(min(left, self.poll_s()))
            self.read_ring()
            self.watch.sample(self.handles, time.monotonic_ns())

    def fire(self, event) -> None:
        names = [g.name for g in self.run.stressors if g.stressor == event.target]
        self.watch.sample(self.handles, time.monotonic_ns(), force=True, names=names)  # just before it
        self.watch.asking(names)
        if event.action == "start":
            for guest in (g for g in self.run.stressors if g.name in names):
                if guest.name in self.held:
                    self.held.discard(guest.name)
                    handle = self.handles[guest.name]
                    handle.backend.resume(handle)
                    self.watch.meant(guest.name, time.monotonic_ns(), True)
                elif guest.name not in self.handles or guest.name in self.stopped:
                    self.stopped.discard(guest.name)
                    self.start(guest)
        else:
            for name in (n for n in names if n in self.handles and n not in self.stopped):
                handle = self.handles[name]
                if event.action == "stop":
                    self.sample_noise(handle.pids, force=True)
                # meant off from the moment the pause/stop is asked (it may take effect before the call
                # returns: xl over ssh), meant on once a resume has returned
                asked = time.monotonic_ns()
                getattr(handle.backend, event.action)(handle)
                resumed = event.action == "resume"
                self.watch.meant(name, time.monotonic_ns() if resumed else asked, resumed,
                                 killed=event.action == "stop")
                if event.action == "stop":
                    self.stopped.add(name)
                    self.pressure.stopped(name)
                    self._drain(handle)
        now = time.monotonic_ns()
        self.watch.sample(self.handles, now, force=True, names=names)  # just after it
        self.watch.event(event, names, self.handles, now)
        self.writer.event("timeline", now, action=event.action, target=event.target,
                          planned_s=event.at_s, t_s=self.rel_s(now),
                          error_ms=(self.rel_s(now) - event.at_s) * 1e3)

    def close_window(self, now: int) -> None:
        """The measured window ends (the measurer's END or exit, or the run's duration)."""
        self.watch.close(self.handles, now)
        self.pressure.close(now)
        self.store_instrument(now)

    def _drain(self, handle: GuestHandle) -> None:
        """Read what a stopped guest left in its console, then stop watching it."""
        while handle.console_fd is not None:
            try:
                data = os.read(handle.console_fd, 1 << 16)
            except (BlockingIOError, InterruptedError, OSError):
                data = b""
            if not data:
                handle.console_fd = None
            else:
                self.console(handle.plan.name, data)

    def sample_noise(self, pids: list[int], force: bool = False) -> None:
        if self.noise is not None:
            self.noise.sample(pids, force=force)

    def noise_report(self) -> dict:
        if self.noise is None:
            return {"not_measured": "the guests run on another machine; this host's CPU time says nothing"}
        return self.noise.finish()

    def stop_all(self) -> None:
        """Stop every guest (those launched ahead and never started too), then keep what
        they left (consoles, ring)."""
        try:
            self.pressure.close(time.monotonic_ns())  # a window still open ends here: no END came
            self.sample_noise(self.pids(), force=True)
        finally:
            for handle in self.handles.values():
                handle.backend.stop(handle)  # never raises
            stop_unstarted(self.ahead.values())  # launched ahead, never started: nothing of theirs to keep
        try:
            for handle in self.handles.values():
                self._drain(handle)
            self.read_ring()
        finally:
            for handle in self.handles.values():
                if handle.ring is not None:
                    handle.ring.close()
            self.pressure.release()


def ring_poll_s(capacity: int, rate: float) -> float:
    """POLL_S, less where samples come (`rate` a second) so fast that a ring of `capacity`
    slots would fill within RING_SLACK waits: a collector that waited 10 ms between reads of
    a 1 Mi-slot ring lost samples from 30 M a second on (its reads take time too)."""
    return min(POLL_S, capacity / rate / RING_SLACK) if rate and capacity else POLL_S


def _groups(run: RunPlan) -> list[list[GuestPlan]]:
    booted = [g for g in run.stressors if g.starts_at_boot]
    measurer = [run.measurer]
    return [booted, measurer] if run.start_order == "stressor-first" else [measurer, booted]


def _measure(state: RunState, tick: Callable[[float], None]) -> tuple[str, str]:
    """Start the guests, apply the timeline, collect until the measurer's end: (status, reason)."""
    run, settings = state.run, state.run.spec.run
    if state.launched is not None and state.launched.error is not None:
        raise state.launched.error  # launching its guests ahead failed: as a start that failed would
    for each in state.backends:
        if state.launched is None or each not in state.launched.backends:
            each.prepare(run, state.writer.path)
    if state.instrument is not None:  # capturing before the first guest starts: no edge of the run is missed
        state.instrument.start()
    # timeline-started stressors first, held paused until their time: started after a
    # real-time measurer, a host process could not even run on its CPU to start
    for guest in run.stressors:
        if not guest.starts_at_boot:
            state.start(guest, paused=True)
    def ready() -> bool:  # the stressors started first are set up: the measurer need not wait longer
        return settings.wait_for_stressors and run.start_order == "stressor-first" and state.watch.ready(state.handles)

    for i, group in enumerate(g for g in _groups(run) if g):
        if i:
            state.pump(settings.start_gap_s, until=ready)
        for guest in group:
            state.start(guest)
    measurer = state.handles["measurer"]
    pending = list(run.timeline)
    run_ns = int((settings.duration_s + settings.grace_s) * 1e9)
    boot_ns = int(settings.boot_timeout_s * 1e9)
    ended_at = None
    while True:
        now = time.monotonic_ns()
        deadline = state.origin_ns + (run_ns if state.begun else boot_ns)
        while state.begun and pending and now >= state.origin_ns + pending[0].at_s * 1e9:
            state.fire(pending.pop(0))
            now = time.monotonic_ns()  # a slow action (xl over ssh) must not leave `now` stale
        state.read_ring()
        tick(state.rel_s(now))
        state.sample_noise(state.pids(), force=state.report.end is not None)
        state.watch.sample(state.handles, now)
        exit_code = measurer.backend.poll_exit(measurer)
        if state.report.end is not None and ended_at is None:
            ended_at = now
            state.close_window(now)
        if exit_code is not None or (ended_at and now - ended_at > AFTER_END_S * 1e9):
            state._drain(measurer)  # its last lines (XT END) may still be in the pipe
            state.settle_consoles(now, final=True)
            state.close_window(time.monotonic_ns())
            return _outcome(state, exit_code)
        if state.begun and not state.report.ends_itself and now >= state.origin_ns + settings.duration_s * 1e9:
            state.close_window(now)
            return _outcome(state, exit_code, reached_duration=True)
        if now > deadline:
            return "fail", _hung(state)
        wait = state.poll_s()
        if pending and state.begun:
            wait = min(wait, (state.origin_ns + pending[0].at_s * 1e9 - now) / 1e9)
        state.read_consoles(wait)


def _outcome(state: RunState, exit_code: int | None, reached_duration: bool = False) -> tuple[str, str]:
    """The parser's verdict on the measurer; where it saw no begin or no sample, with what
    the console showed."""
    status, reason = state.report.outcome(exit_code, reached_duration)
    if status == "fail" and not state.report.errors and (state.report.begin is None or not state.report.sample_count):
        reason = f"{reason} ({state.console_seen()})"
    return status, reason


def _hung(state: RunState) -> str:
    """Why a run that never began, or never ended, failed, with what its console showed."""
    settings, xt = state.run.spec.run, state.run.measurer.output == "xt"
    if state.begun:
        end = "XT END" if xt else f"end of output {state.run.measurer.output!r}"
        waited = f"{end} within duration_s + grace_s = {settings.duration_s + settings.grace_s:g} s"
        fix = f"run.grace_s={2 * (settings.duration_s + settings.grace_s):g}"
    else:
        begin = "XT BEGIN" if xt else state.report.awaited_begin()
        waited = f"{begin} within boot_timeout_s = {settings.boot_timeout_s:g} s"
        fix = f"run.boot_timeout_s={2 * settings.boot_timeout_s:g}"
    return (f"hung: no {waited} ({state.console_seen()}); where its work takes longer (a large size, a slow "
            f"guest), give it the time: --set {fix}")


def execute_run(backend: Backend, run: RunPlan, writer: RunWriter,
                tick: Callable[[float], None] = lambda s: None, launched: Launched | None = None,
                between: Callable[[], None] = lambda: None) -> dict:
    """Run one run to its end; returns the stored metadata. Re-raises KeyboardInterrupt;
    raises RunAborted after an unexpected exception (the run stored as 'error' if the
    disk still takes it). `launched`: its guests launched ahead of it (ahead.py);
    `between()`: once its measured window is over, before its guests are stopped and
    while it is stored, unless it was interrupted or aborted (the next run's guests are
    launched there)."""
    state = RunState(backend, run, writer, launched)
    status, reason, interrupted, fatal = "error", "", False, None
    try:
        status, reason = _measure(state, tick)
        state.watch.finish(time.monotonic_ns, state.pump)  # an event unjudged at the window's end: read on
        status, reason = _with_problems(status, reason, state.watch.problems(), run.spec.run.stressor_failure)
        status, reason = _with_problems(status, reason, state.instrument.problems if state.instrument else [], "fail")
    except XtalkError as err:
        status, reason = "error", str(err)
    except Exception as err:  # noqa: BLE001 - a full disk, a bug: recorded, then the campaign stops
        if not interrupt_raised():
            status, reason, fatal = "error", describe_failure(err), err
        else:  # a Ctrl-C that a library wrapped in its own error (pydantic's schema build: a SchemaError)
            status, reason, interrupted = "interrupted", INTERRUPTED, True
    except KeyboardInterrupt:
        status, reason, interrupted = "interrupted", INTERRUPTED, True
    finally:
        # a further Ctrl-C or SIGTERM waits until every guest is stopped and the run stored (signals.py)
        with deferred_interrupts():
            try:
                status, reason, fatal = _stop(state, run, status, reason, fatal,
                                              between if not interrupted and fatal is None else None)
                meta = _store(state, backend, run, writer, status, reason, fatal)
            finally:  # once stored: the next run's guests were launched before, while it was written
                _cleanup(state, run, ahead=True)
    if interrupted:
        raise KeyboardInterrupt
    if fatal is not None:
        raise RunAborted(run.run_id, reason) from fatal
    return meta


def _stop(state: RunState, run: RunPlan, status: str, reason: str, fatal: Exception | None,
          between: Callable[[], None] | None) -> tuple[str, str, Exception | None]:
    """Stop every guest and close the instrument; a failure there makes the run an error
    (unless it already has a cause). `between()` first (the next run's guests launched:
    they set up while these stop and the run is stored), once what the backends that
    launch ahead say of this run is taken (the next run's prepare may change it)."""
    try:
        try:
            if between is not None:
                state.said = {id(b): b.metadata() for b in state.backends if b.launches_ahead}
                between()  # raises nothing but an interrupt (deferred here)
        finally:
            state.stop_all()
        state.store_instrument()  # what it captured is kept, also when the window never closed
    except Exception as err:  # noqa: BLE001 - every guest is stopped by then; the cause is kept
        if fatal is None:
            status, reason, fatal = "error", describe_failure(err), err
    finally:
        if state.instrument is not None:
            state.instrument.close()
        _cleanup(state, run, ahead=False)  # what they record at cleanup is in the run's metadata
    return status, reason, fatal


def _cleanup(state: RunState, run: RunPlan, ahead: bool) -> None:
    """Clean up the run's backends that launch ahead (`ahead`: after the run is stored), or
    the others (before its metadata is taken)."""
    for each in state.backends:
        if each.launches_ahead == ahead:
            each.cleanup(run)


def _store(state: RunState, backend: Backend, run: RunPlan, writer: RunWriter, status: str, reason: str,
           fatal: Exception | None) -> dict:
    """Record the run's end and outcome (RunAborted, not stored, when the disk refuses)."""
    try:
        writer.event("run_end", time.monotonic_ns(), status=status, reason=reason)
        return writer.finish(status, reason, **record(state, backend, run, writer))
    except Exception as err:  # noqa: BLE001 - the record itself cannot be written (a full disk)
        if fatal is None:
            reason, fatal = describe_failure(err), err
        raise RunAborted(run.run_id, reason, stored=False) from fatal


def _with_problems(status: str, reason: str, problems: list[str], on_failure: str) -> tuple[str, str]:
    """The run's outcome once its stressors' problems (run.stressor_failure) or its
    instrument's (fail) are known."""
    if not problems:
        return status, reason
    if status == "pass":
        status = "degraded" if on_failure == "degrade" else "fail"
    return status, "; ".join([reason, *problems] if reason else problems)

