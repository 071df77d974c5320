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
