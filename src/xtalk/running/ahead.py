"""The next run's guests launched ahead of it, off every measured window.

Once a run's measured window is over, before its guests are stopped (runner._stop calls
`launch` there, once what those backends say of the run is taken), the next run's
directory is opened and, for each of its backends that launches_ahead (qemu), its guests
are launched: QEMU spawned paused (-S) sets its machine up while the previous run's
guests are stopped, the run is stored and its RAM files are removed. Once that run is
stored, `settle` has QMP answer and the vCPU threads pinned (verified) and given their
scheduling class: the guests are held paused. The next run's start then only resumes
each guest (`cont`) at the moment its start order, start gap or timeline says, as before,
and its guest_start event says since when it was ready (`prepared_ns`).

A launched guest is a fresh process for its run, never a reused one. Backends that do not
launch ahead (native, xen, a host stressor's) start their guests when the run asks. A
failure while launching or settling is the next run's: raised at its start, as a failed
start would be. Whatever was launched and not handed to its run is stopped when the
campaign's loop ends, however it ends (Ctrl-C, SIGTERM, a fatal error); that run is
stored as 'interrupted' before it began (--resume redoes it).

Only the guests started before the measured window are launched ahead: a stressor that
starts start_gap_s after a measurer (measurer-first) starts when its run asks, as before:
its start-up falls inside the window, where it costs the campaign nothing, and launched
ahead it would take a CPU from the store between runs.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Iterable

from ..backends.base import Backend, GuestHandle
from ..results.store import RunWriter
from ..signals import deferred_interrupts
from ..spec.plan import RunPlan

NOT_BEGUN = "the campaign stopped before this run began (its guests were launched ahead of it)"


def guest_owners(backend: Backend, run: RunPlan) -> dict[str, Backend]:
    """The backend of each guest of the run: the run's, or its host backend for a host stressor."""
    return {g.name: backend.host_backend() if g.host else backend for g in run.guests}


@dataclass
class Launched:
    """A run's guests launched ahead of it: what execute_run takes over."""

    run: RunPlan
    writer: RunWriter
    backends: list[Backend]  # prepared for the run ahead of it (the runner does not prepare them again)
    launched_ns: int  # host CLOCK_MONOTONIC when the launch began
    handles: dict[str, GuestHandle] = field(default_factory=dict)  # by guest name
    error: Exception | None = None  # raised at the run's start

    def stop(self) -> None:
        """Stop every guest and clean the backends' per-run resources up."""
        stop_unstarted(self.handles.values())
        for backend in self.backends:
            backend.cleanup(self.run)


def before_the_window(run: RunPlan) -> set[str]:
    """The guests the run starts before its measurer begins: all but the stressors that
    start with their run after a measurer-first start's gap."""
    late = {g.name for g in run.stressors if g.starts_at_boot} if run.start_order == "measurer-first" else set()
    return {g.name for g in run.guests} - late


def stop_unstarted(handles: Iterable[GuestHandle]) -> None:
    """Stop guests launched ahead that their run never started (never raises; they have
    nothing to keep: no vCPU of theirs ran) and close their rings."""
    for handle in handles:
        handle.backend.stop(handle)
        for ring in (handle.ring, handle.passes):
            if ring is not None:
                ring.close()


class Ahead:
    """The campaign's loop's one run launched ahead; `with` it: whatever is still held when
    the block ends is stopped and its run stored as 'interrupted'."""

    def __init__(self, backends: dict[str, Backend], open_run: Callable[[RunPlan], RunWriter]):
        self.backends = backends  # by run id
        self.open_run = open_run
        self.pending: Launched | None = None

    def take(self, run: RunPlan) -> Launched | None:
        """What was launched for `run`, handed over (the runner stops it from now on)."""
        launched, self.pending = self.pending, None
        assert launched is None or launched.run is run, "a run launched ahead of another"
        return launched

    def launch(self, run: RunPlan | None) -> None:
        """Open `run`'s directory, prepare its backends that launch ahead and launch their
        guests (none: nothing, its directory is opened when it starts). Raises nothing but
        an interrupt: a failure is kept for the run's start; a directory that cannot be
        opened is tried again there."""
        if run is None:
            return
        owners = guest_owners(self.backends[run.run_id], run)
        ahead = [b for b in {id(b): b for b in owners.values()}.values() if b.launches_ahead]
        if not ahead:
            return
        try:
            writer = self.open_run(run)
        except OSError:
            return
        launched = self.pending = Launched(run, writer, [], time.monotonic_ns())
        try:
            for backend in ahead:
                launched.backends.append(backend)
                backend.prepare(run, writer.path)
            early = before_the_window(run)
            for guest in (g for g in run.guests if owners[g.name].launches_ahead and g.name in early):
                handle = launched.handles[guest.name] = owners[guest.name].launch(guest, run)
                handle.backend = owners[guest.name]
        except Exception as err:  # noqa: BLE001 - the next run's failure, raised at its start
            launched.error = err

    def settle(self) -> None:
        """The launched guests made ready (QMP, pinning), held paused; a failure is kept
        for the run's start."""
        launched = self.pending
        if launched is None or launched.error is not None:
            return
        try:
            for handle in launched.handles.values():
                handle.backend.settle(handle, launched.run)
        except Exception as err:  # noqa: BLE001 - the next run's failure, raised at its start
            launched.error = err

    def __enter__(self) -> Ahead:
        return self

    def __exit__(self, *exc) -> None:
        launched, self.pending = self.pending, None
        if launched is None:
            return
        with deferred_interrupts():  # a further Ctrl-C waits until the guests are stopped
            try:
                launched.stop()
            finally:
                try:
                    launched.writer.event("run_end", time.monotonic_ns(), status="interrupted", reason=NOT_BEGUN)
                    launched.writer.finish("interrupted", NOT_BEGUN)
                except OSError:  # a disk that refuses it: left 'running', --resume recovers it as interrupted
                    pass
