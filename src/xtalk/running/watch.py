"""The stressors of a run, watched like the measurer over its measured window (the
measurer's XT BEGIN to its XT END or exit): alive (poll_exit), not stopped behind
xtalk's back, getting CPU (Backend.vitals: CPU time so far and running / sleeping /
stopped, the one thing a backend provides), what they print (XT ERROR, XT END), and
whether each timeline event took effect. `problems()` says what makes the run failed
(or degraded, run.stressor_failure); `summary()` is meta.json's `stressors_watch`.

on-time: the part of the window in which xtalk means the stressor to run (started or
resumed, not yet paused or stopped by it). Readings come every SAMPLE_EVERY_S and right
before and after each timeline event; each interval between two readings of a guest,
clipped to its on-time, counts as
  active   its CPU time grew by more than PROGRESS_SHARE of the interval (and by more than
           the reading's resolution): it made progress, however small its share of a core;
  idle     no progress, sleeping by its own choice (an injector between its bursts);
  starved  no progress although runnable (a higher-priority neighbour, RT throttling);
  stopped  frozen at the reading's end (SIGSTOP, `xl pause`) without xtalk pausing it;
  gone     from the last reading before it exited or died to the end of its on-time.
An interval that ends after xtalk paused or stopped it counts only when it made progress.
exposure = (active + idle) / every counted interval: the share of its on-time the
stressor was there doing what it does. A CPU hog sharing the measurer's core gets about
half the CPU yet progresses in every interval (exposure ~1, cpu_share ~0.5); on another
core both are ~1. Below STALL_EXPOSURE over at least STALL_MIN_S it stalled. A stressor
stuck asleep (a hung guest) looks idle: caveat.
An event took effect when, over the SETTLE_S after the first reading that follows it,
a paused stressor made no progress, a started or resumed one was active or idle, and a
stopped one was gone at once. Readings from after the next event on the stressor was asked
for do not count: an event that had not settled by then is "not checked", never judged by
what the next one did. An event still unjudged when the window ends (a late one: in the Xen
lab under TCG an event lands seconds late and a reading is an `xl list` over ssh) is read on
after the window, fresh readings every SAMPLE_EVERY_S, until it is judged or JUDGE_AFTER_S
have passed (finish(): the runner's collector waits); those readings judge the event only
(nothing counts in the on-time, an exit after the window is no failure) and its detail says
how long after the window's end it was judged. Caveat: an event that took effect only after
the window took effect for the stressor, not for the measured window (the run's `timeline`
events say when each was done).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..backends.base import GuestHandle, Vitals
from .. import parsers
from ..parsers import OutputParser
from ..spec.plan import RunPlan
from ..results.store import RunWriter

SAMPLE_EVERY_S = 0.1
PROGRESS_SHARE = 0.01
SETTLE_S = 0.2
STALL_EXPOSURE = 0.5   # below: the stressor stalled...
STALL_MIN_S = 0.5      # ...when watched for this long at least (a shorter window cannot tell)
STOPPED_MAX_S = 0.05   # stopped by someone else for longer: a failure
# an event unjudged at the window's end is read on for this long at most: its first reading and
# one SETTLE_S later are two `xl list`s over ssh in the Xen lab, each a round trip of up to 4.0 s
# (median 2.3 s) beside the gate's other worker, 1 s apart unless poked: ~9 s, twice that here.
# (The smoke's resume, done 2.7 s before its window ended, was left unjudged.)
JUDGE_AFTER_S = 20.0
CLASSES = ("active", "idle", "starved", "stopped", "gone")


@dataclass
class Check:
    """A timeline event whose effect on one stressor is being checked."""

    action: str
    planned_s: float
    after_ns: int
    first: Vitals | None = None
    closed: bool = False  # a later event on the stressor was asked for: no reading judges this one now


@dataclass
class Watched:
    name: str
    report: OutputParser
    spans: list[list] = field(default_factory=list)  # [from_ns, to_ns or None]: meant to run
    last: Vitals | None = None
    times: dict[str, float] = field(default_factory=lambda: dict.fromkeys(CLASSES, 0.0))
    cpu_s: float = 0.0
    gone_from: int | None = None
    exit: dict | None = None  # how it ended while xtalk meant it to run
    killed: bool = False      # stopped by xtalk (timeline stop): its exit is expected
    checks: list[Check] = field(default_factory=list)
    effects: list[dict] = field(default_factory=list)

    def on_at(self, ns: int) -> bool:
        return any(a <= ns and (b is None or ns <= b) for a, b in self.spans)


def progressed(a: Vitals, b: Vitals) -> bool:
    interval = (b.taken_ns - a.taken_ns) / 1e9
    return b.cpu_s - a.cpu_s > max(1.5 * b.quantum_s, PROGRESS_SHARE * interval)


class StressorWatch:
    def __init__(self, run: RunPlan, writer: RunWriter, rel_s: Callable[[int], float | None]):
        self.writer, self.rel_s = writer, rel_s
        self.guests = {g.name: Watched(g.name, parsers.create(g.output, run.run_id, g.parser))
                       for g in run.stressors}
        self.window: list = [None, None]  # [BEGIN ns, END ns]
        self.last_sample = 0

    def ready(self, handles: dict) -> bool:
        """Whether every stressor started and running has said it is set up (XT META
        ready=1, guests/lib/main.c) or has ended."""
        return all(w.report.meta.get("ready") == "1" or w.report.end is not None
                   for name, w in self.guests.items() if name in handles and w.spans)

    # -- what the runner tells it ------------------------------------------------------
    def started(self, name: str, now: int, running: bool) -> None:
        """A (new) process or domain for this stressor: its CPU time starts over."""
        w = self.guests[name]
        self._close_gone(w, now)
        w.last, w.killed = None, False
        if running:
            self.meant(name, now, True)

    def meant(self, name: str, now: int, running: bool, killed: bool = False) -> None:
        w = self.guests[name]
        on = bool(w.spans) and w.spans[-1][1] is None
        if running and not on:
            w.spans.append([now, None])
        elif not running and on:
            w.spans[-1][1] = now
        w.killed = w.killed or killed

    def open(self, now: int) -> None:
        self.window[0] = now

    def close(self, handles: dict[str, GuestHandle], now: int) -> None:
        if self.window[0] is not None and self.window[1] is None:
            self.sample(handles, now, force=True)
            self.window[1] = now

    def line(self, name: str, text: str) -> None:
        self.guests[name].report.feed(text)

    def said(self) -> dict[str, dict]:
        """What each stressor said on XT META so far (its work per pass: pressure.py)."""
        return {name: w.report.meta for name, w in self.guests.items()}

    # -- readings ----------------------------------------------------------------------
    def sample(self, handles: dict[str, GuestHandle], now: int, force: bool = False,
               names: list[str] | None = None) -> None:
        """Exit status and vitals of the stressors (of `names`), at most every SAMPLE_EVERY_S
        unless forced; after the window closed, fresh readings of those with an event still
        to judge only."""
        after = self.window[1] is not None
        if (after and not self.unjudged()) or (not force and now - self.last_sample < SAMPLE_EVERY_S * 1e9):
            return
        self.last_sample = now
        for name in list(self.guests) if names is None else names:
            handle, w = handles.get(name), self.guests[name]
            if handle is None or w.killed or w.gone_from is not None or (after and not self._open(w)):
                continue
            code = handle.backend.poll_exit(handle)
            if code is not None and after:  # gone after the window: no failure, and nothing left to judge by
                self._unjudged(w, "not checked: the stressor exited after the window, before it settled", now)
                continue
            if code is not None:
                self._exited(w, code, now)
                continue
            reading = handle.backend.vitals(handle, fresh=force or after)
            if reading is None or (w.last is not None and reading.taken_ns <= w.last.taken_ns):
                continue
            if w.last is not None:
                self._account(w, w.last, reading)
            w.last = reading
            self._check(w, reading)

    def _exited(self, w: Watched, code: int, now: int) -> None:
        t_s = self.rel_s(now)
        w.exit = {"status": code, "t_s": None if t_s is None or self.window[0] is None else round(t_s, 3),
                  "end": w.report.end}
        w.gone_from = w.last.taken_ns if w.last is not None else now
        self.writer.event("stressor_exit", now, guest=w.name, status=code, t_s=t_s, guest_end=w.report.end)

    def _close_gone(self, w: Watched, until: int) -> None:
        if w.gone_from is not None:
            w.times["gone"] += self._on_s(w, w.gone_from, until)
            w.gone_from = None

    def _on_s(self, w: Watched, a: int, b: int) -> float:
        """Seconds of [a, b] inside both the window and the guest's on-time."""
        lo, hi = self.window
        if lo is None:
            return 0.0
        a, b = max(a, lo), b if hi is None else min(b, hi)
        return sum(max(0, min(b, end if end is not None else b) - max(a, start)) for start, end in w.spans) / 1e9

    def _account(self, w: Watched, a: Vitals, b: Vitals) -> None:
        on = self._on_s(w, a.taken_ns, b.taken_ns)
        if on <= 0:
            return
        w.cpu_s += (b.cpu_s - a.cpu_s) * on / ((b.taken_ns - a.taken_ns) / 1e9)
        if progressed(a, b):
            kind = "active"
        elif not w.on_at(b.taken_ns):
            return  # paused or stopped by xtalk within the interval: its state says nothing
        else:
            kind = {"stopped": "stopped", "sleeping": "idle"}.get(b.state, "starved")
        w.times[kind] += on

    # -- timeline events ---------------------------------------------------------------
    def event(self, event, names: list[str], handles: dict[str, GuestHandle], now: int) -> None:
        """Start checking that `event` took effect on each of `names` (a stop: at once)."""
        for name in names:
            w = self.guests[name]
            # a newer event supersedes one not yet checked (a stop too): it says so
            self._unjudged(w, f"not checked: {event.action} at {event.at_s:g} s came before it settled", now)
            if event.action == "stop":
                handle = handles.get(name)
                gone = handle is None or handle.backend.poll_exit(handle) is not None
                self._effect(w, event.action, event.at_s, gone, "gone" if gone else "still running after stop", now)
            else:
                w.checks = [Check(event.action, event.at_s, now)]

    def asking(self, names: list[str]) -> None:
        """The runner is about to act on `names` for a later event: from now on a reading can
        say nothing of an earlier event's effect (a resume whose call has not returned may
        have run already in a slow dom0), so checks not settled yet stop; event() says so."""
        for name in names:
            for check in self.guests[name].checks:
                check.closed = True

    def _check(self, w: Watched, reading: Vitals) -> None:
        for check in list(w.checks):
            if check.closed or reading.taken_ns < check.after_ns:
                continue
            if check.first is None:
                check.first = reading
                continue
            span = (reading.taken_ns - check.first.taken_ns) / 1e9
            if span < SETTLE_S:
                continue
            w.checks.remove(check)
            cpu_ms = round((reading.cpu_s - check.first.cpu_s) * 1e3, 1)
            moving = progressed(check.first, reading)
            if check.action == "pause":
                ok, detail = not moving, f"{cpu_ms:g} ms of CPU in the next {span:.2f} s"
            else:
                ok = moving or reading.state == "sleeping"
                detail = f"{cpu_ms:g} ms of CPU in the next {span:.2f} s, {reading.state}"
            if self.window[1] is not None and reading.taken_ns > self.window[1]:
                detail += f" (judged {(reading.taken_ns - self.window[1]) / 1e9:.1f} s after the window's end)"
            self._effect(w, check.action, check.planned_s, ok, detail, reading.taken_ns)

    @staticmethod
    def _open(w: Watched) -> bool:
        """Whether a reading may still judge an event of w's: not once it exited or was stopped,
        nor where its backend never gave a reading (no `vitals`: it is never waited for)."""
        return (w.last is not None and not w.killed and w.gone_from is None
                and any(not check.closed for check in w.checks))

    def unjudged(self) -> bool:
        """Whether the window closed with an event that a later reading may still judge."""
        return self.window[1] is not None and any(self._open(w) for w in self.guests.values())

    def _unjudged(self, w: Watched, why: str, now: int) -> None:
        """Every event of w's still being checked is said not checked, and why."""
        for check in w.checks:
            self._effect(w, check.action, check.planned_s, None, why, now)
        w.checks = []

    def _effect(self, w: Watched, action: str, planned_s: float, ok: bool | None, detail: str, at_ns: int) -> None:
        record = {"action": action, "planned_s": planned_s, "took_effect": ok, "detail": detail}
        w.effects.append(record)
        self.writer.event("timeline_effect", at_ns, target=w.name, t_s=self.rel_s(at_ns), **record)

    # -- outcome -----------------------------------------------------------------------
    def finish(self, clock: Callable[[], int], pump: Callable[..., None]) -> None:
        """The window is over (or the run ended without one): an event still unjudged is read
        on for at most JUDGE_AFTER_S (`pump(seconds, until=...)`: the runner's collector, which
        samples), then what is still open is closed."""
        if self.unjudged():
            pump(JUDGE_AFTER_S, until=lambda: not self.unjudged())
        now, read_on = clock(), self.window[1] is not None
        if self.window[0] is not None and self.window[1] is None:
            self.window[1] = now
        for w in self.guests.values():
            self._close_gone(w, self.window[1] or now)
            self._unjudged(w, f"not checked: still unsettled {JUDGE_AFTER_S:g} s after the window's end"
                           if read_on and self._open(w) else "not checked: the run ended first", now)

    def summary(self) -> dict:
        out = {}
        for name, w in self.guests.items():
            counted = sum(w.times.values())
            on_s = self._on_s(w, self.window[0] or 0, self.window[1] or 0) if self.window[0] else 0.0
            out[name] = {
                "exposure": round((w.times["active"] + w.times["idle"]) / counted, 3) if counted else None,
                "cpu_share": round(w.cpu_s / counted, 3) if counted else None,
                "on_s": round(on_s, 3), "counted_s": round(counted, 3),
                **{f"{k}_s": round(v, 3) for k, v in w.times.items()}, "cpu_s": round(w.cpu_s, 3),
                "alive": w.exit is None, "end": w.report.end, "errors": w.report.errors,
                # its XT END, read from the console after the exit was seen, if not before
                "exit": None if w.exit is None else {**w.exit, "end": w.exit["end"] or w.report.end},
                "timeline": w.effects,
            }
        return out

    def problems(self) -> list[str]:
        """One sentence per stressor that did not do what the run needed of it."""
        out = []
        for name, s in self.summary().items():
            what = []
            if s["exit"] is not None:
                what.append(exit_words(s["exit"], s["errors"]))
            if s["stopped_s"] > STOPPED_MAX_S:
                what.append(f"was stopped by someone else (SIGSTOP, or a pause xtalk did not make) for "
                            f"{s['stopped_s']:.1f} s of its {s['on_s']:.1f} s on-time")
            elif s["exit"] is None and s["counted_s"] >= STALL_MIN_S and s["exposure"] < STALL_EXPOSURE:
                what.append(f"stalled: there for {s['exposure']:.0%} of its on-time (runnable without CPU for "
                            f"{s['starved_s']:.1f} s of {s['counted_s']:.1f} s watched)")
            what += [f"timeline {e['action']} at {e['planned_s']:g} s did not take effect ({e['detail']})"
                     for e in s["timeline"] if e["took_effect"] is False]
            if what:
                out.append(f"stressor {name} " + "; ".join(what))
        return out


def exit_words(exit: dict, errors: list[dict]) -> str:
    when = "before the measurer began" if exit["t_s"] is None else f"{exit['t_s']:.1f} s into the run"
    words = f"exited (status {exit['status']}) {when}"
    end = exit.get("end") or {}
    if end:
        words += f" with XT END status={end.get('status')}"
    said = [end["reason"]] if end.get("reason") else []
    said += [f"{e['param']}: {e.get('msg', '')}" if e.get("param") else e.get("msg", "") for e in errors]
    return words + (f" ({'; '.join(m for m in said if m)})" if any(said) else "")
