"""How long a run's collector waits for the consoles between two reads of the rings
(running/runner.py ring_poll_s): POLL_S, shorter only where samples come fast enough to
fill a ring within a few waits."""
from xtalk.backends.native import RING_CAPACITY
from xtalk.running.runner import POLL_S, RING_SLACK, ring_poll_s


def test_a_quiet_or_slow_ring_leaves_the_usual_wait():
    assert ring_poll_s(RING_CAPACITY, 0.0) == POLL_S  # nothing came yet, or no ring at all
    assert ring_poll_s(0, 1e6) == POLL_S
    assert ring_poll_s(RING_CAPACITY, 1e6) == POLL_S  # timer_latency at 1 µs: the ring holds a second


def test_a_flood_shortens_the_wait_to_a_fraction_of_the_time_the_ring_takes_to_fill():
    wait = ring_poll_s(RING_CAPACITY, 30e6)
    assert wait == RING_CAPACITY / 30e6 / RING_SLACK < POLL_S / 2  # ~4.4 ms for 1 Mi slots
    assert ring_poll_s(RING_CAPACITY, 60e6) == wait / 2
