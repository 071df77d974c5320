"""Edges of a capture and their pairing into stimulus-to-response delays: hand-made
captures with known answers, and any capture built from known delays and losses
(Hypothesis) gives back exactly those delays, its lost stimuli and its unexpected edges."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from xtalk.instruments.edges import edges_of, grid, pair


def test_edges_are_the_first_sample_at_the_new_level():
    levels = np.array([1, 1, 0, 1, 1, 0, 0, 1])
    assert edges_of(levels, "rising").tolist() == [3, 7]
    assert edges_of(levels, "falling").tolist() == [2, 5]
    assert edges_of(levels, "both").tolist() == [2, 3, 5, 7]
    assert edges_of(np.ones(5), "both").tolist() == []  # the first sample is no edge


def test_a_lost_response_is_counted_with_its_time_and_an_extra_edge_is_unexpected():
    found = pair(np.array([10, 110, 210, 310]), np.array([13, 115, 116, 313]), 400)
    assert found.answered.tolist() == [10, 110, 310]
    assert found.delays.tolist() == [3, 5, 3]
    assert found.lost.tolist() == [210]  # nothing between 210 and 310: 313 is the next one's
    assert found.unexpected == 1  # 116: a second edge after 110's response
    assert found.cut == 0


def test_the_last_stimulus_cut_by_the_capture_end_is_not_lost_but_one_a_period_before_is():
    stimuli, responses = np.array([0, 100, 200]), np.array([4, 104])
    assert pair(stimuli, responses, 250).cut == 1 and pair(stimuli, responses, 250).lost.tolist() == []
    assert pair(stimuli, responses, 350).cut == 0 and pair(stimuli, responses, 350).lost.tolist() == [200]


def test_no_stimulus_leaves_every_response_unexpected():
    found = pair(np.array([], np.int64), np.array([3, 9]), 20)
    assert len(found.delays) == 0 and found.unexpected == 2 and found.responses == 2


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(20, 500), st.one_of(st.none(), st.integers(0, 19))), min_size=1, max_size=60))
def test_a_capture_made_of_known_delays_and_losses_gives_them_back(periods):
    """Each stimulus (one every `gap` samples) gets its response `delay` samples later, or
    none (lost); the capture ends one full period after the last stimulus."""
    t, stimuli, responses, want, lost = 5, [], [], [], []
    for gap, delay in periods:
        stimuli.append(t)
        if delay is None:
            lost.append(t)
        else:
            responses.append(t + delay)
            want.append(delay)
        t += gap
    length = t + 1 + max(g for g, _ in periods)
    stimulus = np.zeros(length, np.int8)
    stimulus[np.array(stimuli)] = 1  # a pulse of one sample: its rising edge
    toggles = np.zeros(length, np.int8)
    toggles[np.array(responses, np.int64)] = 1
    response = np.cumsum(toggles) % 2  # the handler toggles its pin: both edges count
    found = pair(edges_of(stimulus, "rising"), edges_of(response, "both"), length)
    assert found.delays.tolist() == want
    assert found.lost.tolist() == lost
    assert found.unexpected == 0 and found.cut == 0


def test_a_period_grid_times_each_edge_against_its_deadline_from_the_fastest_one():
    # deadlines every 100 samples from 7; responses 3, 5, (none), 3, 9 (+ a second toggle) samples late
    found = grid(np.array([10, 112, 310, 316, 416]), 100)
    assert found.delays.tolist() == [0, 2, 0, 6]  # the fastest response (3 late) is the grid's 0
    assert found.answered.tolist() == [10, 110, 310, 410]
    assert found.lost.tolist() == [210]  # a deadline with no edge, between the first and the last
    assert found.unexpected == 1 and found.cut == 0


def test_a_response_later_than_a_period_belongs_to_the_next_deadline_and_the_one_before_is_lost():
    found = grid(np.array([0, 100, 350, 400]), 100)
    assert found.delays.tolist() == [0, 0, 50, 0] and found.lost.tolist() == [200]


def test_no_response_edge_leaves_the_grid_empty():
    found = grid(np.array([], np.int64), 100)
    assert len(found.stimuli) == 0 and len(found.delays) == 0 and found.unexpected == 0


@settings(max_examples=200, deadline=None)
@given(st.floats(200, 5000), st.integers(0, 10_000),
       st.lists(st.one_of(st.none(), st.integers(0, 40)), min_size=2, max_size=80))
def test_a_periodic_response_made_of_known_lateness_and_skips_gives_them_back(period, start, lateness):
    """Deadline k lies at start + k x period (not a whole number of samples); its response
    comes `late` samples after it, or never (None): the delays come back less the smallest."""
    lateness = [None] + lateness  # a grid slot before the first edge is not measured
    lateness[1] = lateness[1] if lateness[1] is not None else 0
    while lateness[-1] is None:
        lateness.pop()
    deadline = [start + k * period for k in range(len(lateness))]
    edges = np.array([int(np.ceil(d)) + late for d, late in zip(deadline, lateness) if late is not None])
    found = grid(edges, period)
    kept = [int(np.ceil(d)) + late for d, late in zip(deadline, lateness) if late is not None]
    assert found.answered.size == len(kept) and found.unexpected == 0
    lost = [int(np.ceil(d)) for d, late in zip(deadline, lateness) if late is None][1:]  # slot 0: before the first edge
    assert len(found.lost) == len(lost)
    assert found.delays.min() == 0
    fastest = min(late for late in lateness if late is not None)
    want = np.array([late - fastest for late in lateness if late is not None])
    assert np.abs(found.delays - want).max() <= 1  # the deadlines are not whole samples: within one
