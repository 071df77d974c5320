"""The stressor watch's bookkeeping of timeline events (no guests: readings by hand)."""
from types import SimpleNamespace

from xtalk.backends.base import Vitals
from xtalk.spec.plan import GuestPlan
from xtalk.running.watch import StressorWatch


class Writer:
    def __init__(self):
        self.events = []

    def event(self, kind, at_ns, **fields):
        self.events.append((kind, fields))


def test_an_event_superseded_before_it_settled_is_said_unchecked_not_dropped():
    run = SimpleNamespace(run_id="r1", stressors=[GuestPlan("thrash", "stressor", "cache_thrash", {}, (0,))])
    writer = Writer()
    watch = StressorWatch(run, writer, lambda ns: ns / 1e9)
    watch.event(SimpleNamespace(action="pause", at_s=1.0), ["thrash"], {}, 1_000_000_000)
    watch.event(SimpleNamespace(action="resume", at_s=2.5), ["thrash"], {}, 2_500_000_000)
    (effect,) = watch.guests["thrash"].effects
    assert effect["action"] == "pause" and effect["took_effect"] is None, effect
    assert "resume at 2.5 s came before it settled" in effect["detail"]
    assert [c.action for c in watch.guests["thrash"].checks] == ["resume"]
    assert writer.events == [("timeline_effect", dict(target="thrash", t_s=2.5, **effect))]
    assert not any("timeline" in p for p in watch.problems())  # unjudged is no failure


def test_readings_after_the_next_event_was_asked_for_do_not_judge_the_one_before():
    """A slow dom0: the resume's unpause ran before its call returned. The stressor's CPU
    grew after the resume was asked for; that is no evidence against the pause."""
    run = SimpleNamespace(run_id="r1", stressors=[GuestPlan("thrash", "stressor", "cache_thrash", {}, (0,))])
    readings = [Vitals(1_700_000_000, 1.0, "stopped", 0.1), Vitals(3_500_000_000, 1.8, "running", 0.1)]
    backend = SimpleNamespace(poll_exit=lambda h: None, vitals=lambda h, fresh=False: readings.pop(0))
    handles = {"thrash": SimpleNamespace(backend=backend)}
    watch = StressorWatch(run, Writer(), lambda ns: ns / 1e9)
    watch.open(0)
    watch.started("thrash", 0, True)
    watch.meant("thrash", 1_000_000_000, False)
    watch.event(SimpleNamespace(action="pause", at_s=1.0), ["thrash"], handles, 1_600_000_000)
    watch.sample(handles, 1_700_000_000, force=True)  # the first reading after the pause
    watch.asking(["thrash"])                             # the resume is asked for at 2.5 s ...
    watch.sample(handles, 3_500_000_000, force=True)   # ... and its call is still under way
    assert watch.guests["thrash"].effects == []
    watch.meant("thrash", 3_500_000_000, True)
    watch.event(SimpleNamespace(action="resume", at_s=2.5), ["thrash"], handles, 3_500_000_000)
    (effect,) = watch.guests["thrash"].effects
    assert effect["action"] == "pause" and effect["took_effect"] is None, effect
    assert not any("timeline" in p for p in watch.problems())


def _one_stressor(readings):
    """A watch of one stressor `thrash` whose vitals are `readings`, one a call (None once they run out)."""
    run = SimpleNamespace(run_id="r1", stressors=[GuestPlan("thrash", "stressor", "cache_thrash", {}, (0,))])
    backend = SimpleNamespace(poll_exit=lambda h: None,
                              vitals=lambda h, fresh=False: readings.pop(0) if readings else None)
    watch = StressorWatch(run, Writer(), lambda ns: ns / 1e9)
    watch.open(1_000_000_000)
    watch.started("thrash", 1_000_000_000, True)
    return watch, {"thrash": SimpleNamespace(backend=backend)}


def test_an_event_unjudged_at_the_windows_end_is_judged_by_readings_after_it():
    """A late resume (the Xen lab under load): done 0.5 s before the window's end, one reading
    after it by then; the run's end reads on until it is judged, and says it was after the window."""
    readings = [Vitals(9_600_000_000, 1.0, "running", 0.1), Vitals(9_700_000_000, 1.0, "running", 0.1),
                Vitals(10_500_000_000, 1.3, "running", 0.1)]
    watch, handles = _one_stressor(readings)
    watch.meant("thrash", 9_500_000_000, True)
    watch.event(SimpleNamespace(action="resume", at_s=3.5), ["thrash"], handles, 9_500_000_000)
    watch.sample(handles, 9_600_000_000, force=True)   # its first reading
    watch.close(handles, 10_000_000_000)                # the window ends, 0.1 s after it: too soon to judge
    assert watch.unjudged() and watch.guests["thrash"].effects == []
    pumped = []

    def pump(seconds, until):
        pumped.append(seconds)
        now = 10_000_000_000
        while not until():
            now += 100_000_000
            watch.sample(handles, now)
    watch.finish(lambda: 11_000_000_000, pump)
    (effect,) = watch.guests["thrash"].effects
    assert effect["took_effect"] is True and "judged 0.5 s after the window's end" in effect["detail"], effect
    assert pumped == [20.0] and not watch.unjudged()
    summary = watch.summary()["thrash"]
    assert summary["on_s"] == 9.0 and summary["counted_s"] == 0.4  # of the reading after it, its part inside


def test_an_event_still_unsettled_after_the_bound_is_said_so_and_a_run_without_one_waits_not():
    watch, handles = _one_stressor([Vitals(9_100_000_000, 1.0, "running", 0.1)])
    watch.event(SimpleNamespace(action="pause", at_s=2.0), ["thrash"], handles, 9_000_000_000)
    watch.sample(handles, 9_100_000_000, force=True)
    watch.close(handles, 10_000_000_000)
    watch.finish(lambda: 30_000_000_000, lambda seconds, until: None)  # no reading came in the bound
    (effect,) = watch.guests["thrash"].effects
    assert effect["took_effect"] is None and effect["detail"] == "not checked: still unsettled 20 s after the window's end"

    def waited(seconds, until):
        raise AssertionError("waited")
    quiet, _ = _one_stressor([])
    quiet.close({}, 10_000_000_000)
    quiet.finish(lambda: 10_000_000_000, waited)
    blind, handles = _one_stressor([])  # a backend without vitals: its events are never waited for
    blind.event(SimpleNamespace(action="pause", at_s=2.0), ["thrash"], handles, 9_000_000_000)
    blind.close(handles, 10_000_000_000)
    blind.finish(lambda: 10_000_000_000, waited)
    assert blind.guests["thrash"].effects[0]["detail"] == "not checked: the run ended first"


def test_a_stop_before_a_start_settled_says_so():
    """The dom0 stressor's start, not settled when its stop was asked for: unjudged because of the
    stop, not 'the run ended first'."""
    watch, handles = _one_stressor([])
    handles["thrash"].backend.poll_exit = lambda h: 0
    watch.event(SimpleNamespace(action="start", at_s=1.0), ["thrash"], handles, 2_000_000_000)
    watch.asking(["thrash"])
    watch.event(SimpleNamespace(action="stop", at_s=4.5), ["thrash"], handles, 4_000_000_000)
    start, stop = watch.guests["thrash"].effects
    assert start["took_effect"] is None and start["detail"] == "not checked: stop at 4.5 s came before it settled"
    assert stop == {"action": "stop", "planned_s": 4.5, "took_effect": True, "detail": "gone"}
