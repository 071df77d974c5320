"""A finished capture as a run's samples and facts (the runner stores them).

Each answered stimulus inside the run's measured window (from the measurer's begin to the
window's close; the capture runs longer: instrument.sr keeps all of it, and the facts
count the stimuli outside) is one sample of the instrument's metric: its value the delay in
ns (a whole number of sample periods, rounded to the ns), its t the stimulus's host
CLOCK_MONOTONIC ns (the metric is declared with clock = "host": results/finalize.py
places it on the run's time axis from there, whatever clock the measurer's own samples
use). The samples carry a metric id and seq numbers of their own (INSTRUMENT_METRIC,
INSTRUMENT_SEQ up): the measurer's loss accounting counts the guest's seq only.
Facts (meta.json `instrument`), over the window: the stimuli, the answered ones, every lost
response (with its time in the run, the first MAX_LISTED); over the capture: one cut by
its end, unexpected response edges, the resolution, and the capture's length against what its time should
have given. Problems fail the run: a channel without a single edge (wiring), a
capture short of samples or one that says it dropped events (the instrument overflowed:
edges may be missing).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..spec.model import InstrumentSettings
from .base import Capture
from .edges import grid, pair

if TYPE_CHECKING:  # NumPy is imported by measured(): the instruments' plug-in loading imports this module
    import numpy as np

INSTRUMENT_METRIC = 0xFFFF0000  # metric id of the instrument's samples, far from any guest's
INSTRUMENT_SEQ = 1 << 62        # their first seq
OVERFLOW_SHARE = 0.9            # fewer samples than this share of what the capture's time gives: overflow
MAX_LISTED = 100                # lost responses listed with their time


@dataclass
class Measured:
    samples: np.ndarray
    metric: dict[str, str]
    facts: dict
    problems: list[str] = field(default_factory=list)


def measured(settings: InstrumentSettings, capture: Capture, window: tuple[int | None, int | None]) -> Measured:
    """The capture's delays in the run's measured window (host ns from, to: the measurer's
    begin and the window's close; None: it never began, or never closed) as samples."""
    import numpy as np
    
    from ..results.schema import SAMPLE_DTYPE
    ns_per_sample = 1e9 / capture.rate_hz
    found = (grid(capture.response, settings.period_ns / ns_per_sample) if settings.period_ns
             else pair(capture.stimulus, capture.response, capture.samples))
    begin, end = window

    def at(indices: np.ndarray) -> np.ndarray:
        return capture.start_ns + np.round(indices * ns_per_sample).astype(np.int64)

    def inside(t: np.ndarray) -> np.ndarray:
        return (t >= begin) & (t <= (end if end is not None else np.iinfo(np.int64).max)) if begin is not None \
            else np.zeros(len(t), bool)

    answered_ns, lost_ns = at(found.answered), at(found.lost)
    keep, lost_in = inside(answered_ns), inside(lost_ns)
    samples = np.zeros(int(keep.sum()), SAMPLE_DTYPE)
    samples["seq"] = INSTRUMENT_SEQ + np.arange(len(samples), dtype=np.uint64)
    samples["t"] = answered_ns[keep]
    samples["value"] = np.round(found.delays[keep] * ns_per_sample).astype(np.int64)
    samples["metric"] = INSTRUMENT_METRIC
    stimuli_in = int(inside(at(found.stimuli)).sum())
    captured_s = capture.samples / capture.rate_hz
    facts = {
        "kind": settings.kind, "metric": settings.metric,
        "stimulus": settings.stimulus_text,
        "response": f"{settings.response} {settings.response_edge}",
        "samplerate_hz": capture.rate_hz, "resolution_ns": ns_per_sample,
        "samples": capture.samples, "captured_s": captured_s, "wanted_samples": capture.wanted_samples,
        "stimuli": stimuli_in, "answered": len(samples), "lost": int(lost_in.sum()),
        "lost_t_s": [round((t - begin) / 1e9, 6) for t in lost_ns[lost_in][:MAX_LISTED]],
        "outside_window": len(found.stimuli) - stimuli_in,
        "cut_by_end": found.cut, "unexpected_responses": found.unexpected,
        "align_ns": capture.align_ns, "dropped": capture.dropped, **capture.facts,
    }
    problems = []
    if settings.stimulus and not len(found.stimuli):
        problems.append(f"instrument: no {settings.stimulus_edge} edge on the stimulus channel {settings.stimulus} "
                        f"in {captured_s:.3g} s of capture: is it wired and driven?")
    elif not len(capture.response):
        lost = (f"every one of the {len(found.stimuli)} stimuli went unanswered" if settings.stimulus
                else "not one deadline could be timed")
        problems.append(f"instrument: no edge at all on the response channel {settings.response}: {lost} (is the "
                        "pin wired, and does the guest drive it?)")
    if capture.samples < OVERFLOW_SHARE * capture.wanted_samples:
        ran_s = capture.wanted_samples / capture.rate_hz
        problems.append(f"instrument: the capture holds {capture.samples:,} samples where the {ran_s:.3g} s it ran at "
                        f"{capture.rate_hz:g} Hz should give {capture.wanted_samples:,}: it dropped samples (an "
                        "overflow), so edges may be missing")
    if capture.dropped:
        problems.append(f"instrument: the capture says it lost {capture.dropped:,} events (an overflow), so edges "
                        "may be missing")
    metric = {"name": settings.metric, "unit": "ns", "kind": "latency", "clock": "host"}
    return Measured(samples, metric, facts, problems)
