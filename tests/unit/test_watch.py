"""The stressor watch's bookkeeping of timeline events (no guests: readings by hand)."""
from types import SimpleNamespace

from xtalk.plan import GuestPlan
from xtalk.watch import StressorWatch


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
