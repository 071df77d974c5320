"""The pressure a stressor achieved (src/xtalk/running/pressure.py), from rings read by hand: only
the passes inside the measured window count, a stressor started anew counts its new
process from 0, and one that cannot say gets its reason."""
import pytest

from xtalk.running.pressure import NO_WINDOW, PressureMeter, pressure, words

MIB = 1 << 20
THRASH = {"work_per_pass": str(16 * MIB), "work_unit": "bytes"}


class Ring:
    """A stressor's ring as the meter sees it: its header's write_seq."""

    def __init__(self, seq=0):
        self.seq, self.closed = seq, False

    def header(self):
        return self.seq, 0, 0

    def close(self):
        self.closed = True


def test_the_rate_is_work_per_pass_times_passes_over_the_window():
    p = pressure(300, 16 * MIB, "bytes", 1.5)
    assert p == {"rate": 300 * 16 * MIB / 1.5, "unit": "bytes/s", "passes": 300, "work_per_pass": 16 * MIB,
                 "work_unit": "bytes", "window_s": 1.5}
    assert pressure(4, 1000, "interrupts", 0.5)["rate"] == 8000 and pressure(4, 1, "exits", 1)["unit"] == "exits/s"
    assert pressure(4, 1, "ops", 0)["rate"] is None and "no time" in pressure(4, 1, "ops", 0)["not_reported"]
    assert words(p) == f"pressure 3.36e+09 bytes/s (300 passes of {16 * MIB} bytes in 1.50 s)"


def test_only_passes_inside_the_window_count_across_a_restart():
    meter = PressureMeter(["thrash"])
    first = Ring(seq=7)  # passes before the measurer began: not counted
    meter.started("thrash", first, "")
    meter.open(1_000_000_000)
    first.seq = 27  # 20 passes in the window, then the timeline stops it
    meter.stopped("thrash")
    first.seq = 0  # its file made anew for the next start: no longer read
    second = Ring()
    meter.started("thrash", second, "")  # started again: a new process counting from 0
    second.seq = 10
    meter.close(3_000_000_000)
    second.seq = 99  # after the window: not counted
    meter.close(4_000_000_000)  # idempotent: the runner closes again when it stops the guests
    meter.release()
    assert first.closed and second.closed
    got = meter.summary({"thrash": THRASH})["thrash"]
    assert got["passes"] == 30 and got["window_s"] == 2.0
    assert got["rate"] == pytest.approx(30 * 16 * MIB / 2.0)


def test_a_stressor_that_cannot_say_gets_a_reason():
    meter = PressureMeter(["steal", "qsort", "late", "thrash"])
    meter.started("steal", None, "bench steal runs in xtalk-steal, which counts no passes")
    meter.started("qsort", Ring(), "")
    meter.started("thrash", Ring(), "")
    assert meter.summary({"thrash": THRASH})["thrash"] == {"not_reported": NO_WINDOW}
    meter.open(0)
    meter.close(10**9)
    got = meter.summary({"thrash": THRASH, "qsort": {"overhead_cycles": "40"}})
    assert got["steal"] == {"not_reported": "bench steal runs in xtalk-steal, which counts no passes"}
    assert got["late"] == {"not_reported": "never started"}
    assert got["qsort"]["passes"] == 0 and "states no work per pass" in got["qsort"]["not_reported"]
    assert got["thrash"]["rate"] == 0.0
    assert all(words(p).startswith("pressure not reported (") for n, p in got.items() if n != "thrash")
