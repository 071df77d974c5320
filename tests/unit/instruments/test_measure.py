"""A capture into samples, facts and problems (instruments/measure.py)."""
import numpy as np
import pytest
from pydantic import ValidationError

from xtalk.instruments.base import Capture
from xtalk.instruments.measure import INSTRUMENT_METRIC, measured
from xtalk.results.schema import HOST_SEQ
from xtalk.spec.model import InstrumentSettings

SETTINGS = InstrumentSettings.model_validate({"kind": "sigrok", "stimulus": "D0", "response": "D1",
                                             "samplerate_hz": 4_000_000, "response_edge": "both"})
START = 5_000_000_000
WHOLE = (START, None)  # a window holding the whole capture


def capture(stimulus, response, samples=4_000, wanted=4_000) -> Capture:
    return Capture(np.array(stimulus, np.int64), np.array(response, np.int64), samples, 4e6, START, 20_000_000,
                   wanted, {"device": "test"})


def test_each_answered_stimulus_is_a_sample_in_ns_on_the_host_clock():
    got = measured(SETTINGS, capture([100, 1100, 2100], [107, 2103]), (START - 1_000_000_000, None))
    assert got.samples["value"].tolist() == [1750, 750]  # 7 and 3 samples of 250 ns
    assert got.samples["t"].tolist() == [START + 25_000, START + 525_000]
    assert got.samples["metric"].tolist() == [INSTRUMENT_METRIC] * 2
    assert (got.samples["seq"] >= HOST_SEQ).all()
    assert got.metric == {"name": "irq_latency", "unit": "ns", "kind": "latency", "clock": "host"}
    facts = got.facts
    assert (facts["stimuli"], facts["answered"], facts["lost"], facts["resolution_ns"]) == (3, 2, 1, 250.0)
    assert facts["lost_t_s"] == [1.000275]  # the stimulus at sample 1100, on the run's time axis
    assert got.problems == []


def test_a_silent_channel_and_a_short_capture_are_problems():
    assert "no rising edge on the stimulus channel D0" in measured(SETTINGS, capture([], [5]), WHOLE).problems[0]
    assert "every one of the 2 stimuli went unanswered" in measured(SETTINGS, capture([5, 900], []), WHOLE).problems[0]
    short = measured(SETTINGS, capture([5], [9], samples=3_000, wanted=4_000), WHOLE).problems
    assert len(short) == 1 and "dropped samples (an overflow)" in short[0]


def test_only_the_measured_window_gives_samples_and_the_rest_is_counted_outside():
    """Stimuli at 0.025, 0.275, 0.525 and 0.775 ms of a capture whose window is 0.2-0.6 ms."""
    got = measured(SETTINGS, capture([100, 1100, 2100, 3100], [103, 1103, 3103]), (START + 200_000, START + 600_000))
    assert got.samples["t"].tolist() == [START + 275_000]  # 2100's response is lost, 100 and 3100 are outside
    assert (got.facts["stimuli"], got.facts["answered"], got.facts["lost"]) == (2, 1, 1)
    assert got.facts["outside_window"] == 2 and got.facts["lost_t_s"] == [0.000325]
    never = measured(SETTINGS, capture([100], [103]), (None, None))  # the measurer never began
    assert len(never.samples) == 0 and never.facts["outside_window"] == 1


def test_without_a_stimulus_channel_each_response_is_timed_against_the_period():
    """period_ns 250 us = 1000 samples at 4 MHz: deadlines from sample 100, responses 3, 7,
    (none), 3 samples after them: delays from the fastest one, the skipped deadline lost."""
    timer = InstrumentSettings.model_validate({"kind": "sigrok", "response": "D1", "samplerate_hz": 4_000_000,
                                               "period_ns": 250_000})
    got = measured(timer, capture([], [103, 1107, 3103]), (START - 1_000_000_000, None))
    assert got.samples["value"].tolist() == [0, 1000, 0]  # 0, 4 and 0 samples of 250 ns
    assert (got.facts["stimuli"], got.facts["answered"], got.facts["lost"]) == (4, 3, 1)
    assert got.facts["stimulus"] == "every 250,000 ns (no channel)" and got.problems == []
    (silent,) = measured(timer, capture([], []), WHOLE).problems
    assert "no edge at all on the response channel D1: not one deadline could be timed" in silent


def test_a_period_shorter_than_two_samples_is_refused():
    with pytest.raises(ValidationError, match="shorter than two samples at 1000 Hz"):
        InstrumentSettings.model_validate({"kind": "sigrok", "response": "D1", "samplerate_hz": 1000,
                                           "period_ns": 1_999_999})
    InstrumentSettings.model_validate({"kind": "sigrok", "response": "D1", "samplerate_hz": 1000, "period_ns": 2_000_000})
