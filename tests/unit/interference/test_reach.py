"""interference/reach.py: a stressor measured alone gets the time its pass may need (a copy
of twice a large LLC in a slow guest ends its pass long after duration_s), or the spec's
longer grace_s."""
from __future__ import annotations

from xtalk.interference.reach import PASS_GRACE_S, reach_spec

RAW = {"name": "s", "cpus": [0, 1], "backend": {"kind": "qemu"}, "run": {"grace_s": 10.0},
       "measurer": {"bench": "pointer_chase"}}
ENTRY = {"name": "membw", "channel": "membw", "stressor": {"bench": "memcpy", "params": {"size": "llc*2"}}}


def test_a_stressor_alone_has_time_to_end_its_pass_and_a_longer_grace_of_the_spec_stays():
    spec = reach_spec(RAW, ENTRY, 2.0)
    assert spec["run"]["grace_s"] == PASS_GRACE_S >= 6 * RAW["run"]["grace_s"]
    assert spec["measurer"] == {"bench": "memcpy", "params": {"size": "llc*2"}}
    longer = reach_spec(dict(RAW, run={"grace_s": 300.0}), ENTRY, 2.0)
    assert longer["run"]["grace_s"] == 300.0
