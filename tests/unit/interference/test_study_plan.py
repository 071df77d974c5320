"""interference/study.py's plan: a channel's default whose buffers a probe guest cannot
hold (memcpy over llc*2 of a host whose LLC is 2 GiB: 2 x 4 GiB, where a probe guest
allocates at most 2 GiB below 4 GiB) is sized down to fit, and its entry says from what;
natively, where the stressor is a host process, it is not."""
from __future__ import annotations

from xtalk.interference.names import BY_NAME
from xtalk.interference.study import study_plan
from xtalk.spec.load import parse_campaign

GIB = 1 << 30
SPEC = 'name = "s"\ncpus = [0, 1]\n[backend]\nkind = "{kind}"\n[measurer]\nbench = "qsort"\n'
CHANNELS = [BY_NAME[n] for n in ("l2", "llc", "membw")]


def plan(kind: str, caches: dict) -> dict[str, dict]:
    spec, _ = parse_campaign(SPEC.format(kind=kind), "s.toml")
    return {e["channel"]: e for e in study_plan(spec, CHANNELS, caches)}


def test_a_default_too_large_for_a_probe_guest_is_sized_down_and_says_so():
    entries = plan("qemu", {"l1": 32 << 10, "l2": 1 << 20, "llc": 2 * GIB, "shared": 2 * GIB})
    membw = entries["membw"]
    assert membw["tested"] and membw["stressor"]["params"]["size"] == GIB  # 2 buffers of 1 GiB
    assert "size=llc*2 = 4 GiB to 1 GiB" in membw["sized"] and "2 GiB" in membw["sized"]
    assert entries["llc"]["stressor"]["params"]["size"] == GIB  # shared = 2 GiB: two buffers of it
    assert entries["l2"]["stressor"]["params"] == {"size": "l2"} and "sized" not in entries["l2"]


def test_defaults_that_fit_and_native_stressors_keep_their_sizes():
    small = plan("qemu", {"l1": 32 << 10, "l2": 1 << 20, "llc": 32 << 20, "shared": 32 << 20})
    assert small["membw"]["stressor"]["params"] == {"size": "llc*2"} and "sized" not in small["membw"]
    native = plan("native", {"l1": 32 << 10, "l2": 1 << 20, "llc": 2 * GIB, "shared": 2 * GIB})
    assert native["membw"]["stressor"]["params"] == {"size": "llc*2"} and "sized" not in native["membw"]
