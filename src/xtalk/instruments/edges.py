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
Resolution: one sample period, 1e9 / rate ns: every delay is a whole number of samples,
and the true delay lies within one sample period of it (either edge may fall anywhere
in its sample).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def edges_of(levels: np.ndarray, edge: str) -> np.ndarray:
    """Sample indices where a 0/1 channel takes its new level on `edge` (rising, falling,
    both); the capture's first sample is no edge (its level before is unknown)."""
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
