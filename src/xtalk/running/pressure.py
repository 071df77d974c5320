"""The pressure each stressor achieved over the measured window (the measurer's XT BEGIN
to its XT END, as the stressor watch's window): meta.json's `pressure`, per stressor.

A probe-suite stressor states once what one pass of its loop does (`XT META
work_per_pass=N work_unit=U`, guests/lib/proto.c xt_work) and, given a small shared ring
of its own (GuestHandle.passes: a /dev/shm file natively, its RAM file under qemu),
records one sample per pass there: the ring header's write_seq counts its passes. The
host reads only that header, never the slots (a stressor's samples never join the
measurer's), at the window's start, when the timeline stops a stressor (its process is
gone, its ring still holds the count; a later start begins a new one from 0) and at the
window's end. Rate = work_per_pass
x passes / window seconds, in U/s ("bytes/s", "ops/s", "exits/s", "interrupts/s").
A stressor that cannot say (no ring: Xen, the POSIX suite, steal, a foreign image; or a
bench that states no work per pass) gets `not_reported` with the reason instead.
Caveats: passes are whole (a pass under way at either end of the window is counted where
it ends, an error of at most one pass each side); the window includes the time the
timeline held, paused or stopped the stressor (its average over the window, not its
rate while on: stressors_watch's on_s says how long it was on).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..telemetry.ring import RingReader

NO_WINDOW = "no measured window: the measurer never began"


def pressure(passes: int, work_per_pass: int, work_unit: str, window_s: float) -> dict:
    """A stressor's pressure record from its passes over a window of window_s seconds."""
    rate = work_per_pass * passes / window_s if window_s > 0 else None
    return {"rate": rate, "unit": f"{work_unit}/s", "passes": passes, "work_per_pass": work_per_pass,
            "work_unit": work_unit, "window_s": round(window_s, 6),
            **({} if rate is not None else {"not_reported": "the measured window lasted no time"})}


@dataclass
class Counter:
    """One stressor's pass count over the window, across the processes it was started as."""

    why: str | None = None  # why its passes are not counted (no ring)
    passes: int = 0
    reader: RingReader | None = None  # the ring of its current process
    seen: int | None = None  # write_seq at its last reading in the window (None: none yet)


class PressureMeter:
    def __init__(self, names: list[str]):
        self.counters = {name: Counter(why="never started") for name in names}
        self.window: list[int | None] = [None, None]  # [BEGIN ns, END ns]

    def _inside(self) -> bool:
        return self.window[0] is not None and self.window[1] is None

    def _read(self, c: Counter) -> None:
        if c.reader is None or not self._inside():
            return
        seq = c.reader.header()[0]
        if c.seen is not None:
            c.passes += seq - c.seen
        c.seen = seq

    def started(self, name: str, passes: RingReader | None, why: str) -> None:
        """A (new) process or domain for this stressor (any earlier one was stopped()): its
        ring (None: it has none, `why`)."""
        c = self.counters[name]
        c.reader, c.why = passes, None if passes is not None else why
        c.seen = 0 if self._inside() else None  # started in the window: every pass of it counts

    def stopped(self, name: str) -> None:
        """The timeline stopped this stressor: its last passes are counted and its ring let go
        (a new start may reuse the ring's file)."""
        c = self.counters[name]
        self._read(c)
        if c.reader is not None:
            c.reader.close()
            c.reader = None

    def open(self, now: int) -> None:
        self.window[0] = now
        for c in self.counters.values():
            self._read(c)

    def close(self, now: int) -> None:
        """The window ends (idempotent; also when the run stops without an END)."""
        if self._inside():
            for c in self.counters.values():
                self._read(c)
            self.window[1] = now

    def release(self) -> None:
        for name in self.counters:
            self.stopped(name)  # a no-op read once the window is closed

    def summary(self, said: dict[str, dict]) -> dict[str, dict]:
        """meta.json's `pressure`: per stressor, from what it said (its XT META) and its passes."""
        out = {}
        lo, hi = self.window
        for name, c in self.counters.items():
            meta = said.get(name) or {}
            work, unit = meta.get("work_per_pass"), meta.get("work_unit")
            if c.why is not None:
                out[name] = {"not_reported": c.why}
            elif lo is None or hi is None:
                out[name] = {"not_reported": NO_WINDOW}
            elif not (isinstance(work, str) and work.isdigit() and unit):
                out[name] = {"passes": c.passes, "window_s": round((hi - lo) / 1e9, 6),
                             "not_reported": "its bench states no work per pass (XT META work_per_pass= work_unit=)"}
            else:
                out[name] = pressure(c.passes, int(work), unit, (hi - lo) / 1e9)
        return out


def words(record: dict | None) -> str:
    """A stressor's pressure record (meta.json `pressure`) in a few words, for show and the report."""
    if not record:
        return "pressure not recorded"
    if record.get("rate") is None:
        return f"pressure not reported ({record.get('not_reported') or 'no reason recorded'})"
    return (f"pressure {record['rate']:.3g} {record['unit']} ({record['passes']} passes of "
            f"{record['work_per_pass']} {record['work_unit']} in {record['window_s']:.2f} s)")
