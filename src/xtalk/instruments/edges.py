"""Stimulus-to-response delays from the edges an instrument captured (issue 28).

A capture is two channels sampled at one rate: each stimulus edge (the interrupt's cause:
a PWM or timer output) should be followed by one response edge (the pin the guest's ISR
toggles) before the next stimulus. Each stimulus with its first response edge at or after
it, and before the next stimulus, gives one delay; a stimulus with none is a lost
response (a lost interrupt, or one served after the next came), counted and kept with
its time, never dropped; a response edge no stimulus claims (a second toggle, noise) is
counted as unexpected. The last stimulus's window runs to the capture's end; when the
capture ends before a typical stimulus period has passed, its missing response is
"cut by the capture's end", not lost.
A lone stimulus without a response is lost (no period tells it from a cut one).
Without a stimulus channel (`period_ns`: a board with no GPIO loop, where the timer
bench's own deadlines are the stimulus, strictly periodic) `grid` pairs the response
edges with a grid of that period instead: each edge belongs to the latest grid point at or
before it, and the grid's phase is the one that makes the earliest edge's delay 0 (an
edge more than 3/4 of a period after the typical one, the circular mean of all, counts as
the next deadline's: lateness is skewed, the bulk of the responses lies near the fastest). A delay
is then the lateness beyond the fastest response the capture saw (the fixed part, from
the deadline to the fastest response, is not seen from outside); a grid point between the
first and the last edge without an edge is a lost response (the bench skipped a deadline
it was too late for, or the interrupt never came), a second edge in one slot unexpected.
The grid runs on the instrument's clock: a guest timer slower or faster than real time
shows as delays drifting with the run.
Resolution: one sample period, 1e9 / rate ns: every delay is a whole number of samples,
and the true delay lies within one sample period of it (either edge may fall anywhere
in its sample).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # NumPy is imported by the functions: the instruments' plug-in loading imports this module
    import numpy as np


def edges_of(levels: np.ndarray, edge: str) -> np.ndarray:
    """Sample indices where a 0/1 channel takes its new level on `edge` (rising, falling,
    both); the capture's first sample is no edge (its level before is unknown)."""
    import numpy as np
    levels = np.asarray(levels, np.int8)
    step = np.diff(levels)
    wanted = {"rising": step > 0, "falling": step < 0, "both": step != 0}[edge]
    return np.flatnonzero(wanted) + 1


@dataclass(frozen=True)
class Pairing:
    """What a capture's edges say, in sample indices of the capture."""

    stimuli: np.ndarray      # every stimulus edge
    answered: np.ndarray     # the stimuli that got a response
    delays: np.ndarray       # their delays, in samples (int64), one per answered stimulus
    lost: np.ndarray         # the stimuli with no response before the next stimulus
    cut: int                 # 1 when the last stimulus's response was cut by the capture's end
    unexpected: int          # response edges no stimulus claimed

    @property
    def responses(self) -> int:
        return len(self.delays) + self.unexpected


def pair(stimuli: np.ndarray, responses: np.ndarray, samples: int) -> Pairing:
    """Pair each stimulus edge with the first response edge at or after it and before the
    next stimulus; `samples`: the capture's length, where the last window ends."""
    import numpy as np
    stimuli = np.asarray(stimuli, np.int64)
    responses = np.asarray(responses, np.int64)
    if not len(stimuli):
        empty = np.zeros(0, np.int64)
        return Pairing(empty, empty, empty, empty, 0, len(responses))
    first = np.searchsorted(responses, stimuli, side="left")
    window_end = np.append(stimuli[1:], samples)
    found = first < len(responses)
    at = responses[np.minimum(first, max(len(responses) - 1, 0))] if len(responses) else np.zeros(len(stimuli), np.int64)
    answered = found & (at < window_end)
    cut = int(not answered[-1] and len(stimuli) >= 2 and samples - stimuli[-1] < np.median(np.diff(stimuli)))
    lost = ~answered
    if cut:
        lost[-1] = False
    return Pairing(stimuli, stimuli[answered], at[answered] - stimuli[answered], stimuli[lost], cut,
                   len(responses) - int(answered.sum()))


def grid(responses: np.ndarray, period: float) -> Pairing:
    """Pair response edges with a grid of `period` samples (no stimulus channel): the
    grid's phase puts the earliest edge's delay at 0; a slot between the first and the
    last edge with no edge is lost, a second edge in a slot unexpected."""
    import numpy as np
    responses = np.asarray(responses, np.int64)
    if not len(responses):
        empty = np.zeros(0, np.int64)
        return Pairing(empty, empty, empty, empty, 0, 0)
    since = (responses - responses[0]).astype(np.float64)
    angle = 2 * np.pi * np.mod(since, period) / period
    typical = np.arctan2(np.sin(angle).mean(), np.cos(angle).mean()) * period / (2 * np.pi)
    typical += np.median(np.mod(since - typical + period / 2, period) - period / 2)
    # lateness is skewed: up to 3/4 of a period after the typical edge is late, more is early for the next deadline
    phase = typical + np.min(np.mod(since - typical + period / 4, period) - period / 4)
    slot = np.floor((since - phase) / period + 1e-9).astype(np.int64)
    slots, first = np.unique(slot, return_index=True)
    every = np.arange(slots[0], slots[-1] + 1)
    points = responses[0] + np.round(phase + every * period).astype(np.int64)
    taken = slots - slots[0]
    return Pairing(points, points[taken], responses[first] - points[taken], np.delete(points, taken), 0,
                   len(responses) - len(slots))
