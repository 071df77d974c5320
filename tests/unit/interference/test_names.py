"""The channels (interference/names.py) against the catalogue the guests declare: every
channel's default stressor says it loads that channel, every channel a stressor declares
is a known one, and every declared search range is usable."""
from __future__ import annotations

import pytest

from xtalk.interference import names
from xtalk.search import space
from xtalk.spec import catalogue

CACHES = {"l1": 32 << 10, "l2": 1 << 20, "llc": 16 << 20}


def stressors():
    return [b for s in catalogue.load().suites.values() for b in s.benches.values() if b.role == "stressor"]


@pytest.mark.parametrize("channel", [c for c in names.CHANNELS if c.bench], ids=lambda c: c.name)
def test_each_default_stressor_declares_its_channel(channel):
    assert names.why_not(channel, "qemu", {}, vcpus=channel.min_vcpus) is None
    bench = catalogue.load().bench(channel.bench, ("probe",))
    assert channel.name in bench.channels
    for key in channel.params:
        assert key in bench.params and bench.params[key].problem(channel.params[key]) is None


def test_the_probe_stressors_declare_known_channels_and_usable_ranges():
    probe = [b for b in stressors() if b.suite == "probe"]
    assert probe and all(b.channels for b in probe)
    for b in stressors():
        assert set(b.channels) <= set(names.BY_NAME), b.name
        for pname, tune in b.tune.items():
            d = space.dim_of(b.name, b.params[pname], tune.range, CACHES, b.name)
            assert d.kind == "choice" or d.low <= d.default <= d.high, (b.name, pname)


def test_a_channel_that_cannot_be_exercised_says_why():
    assert "interconnect" in names.why_not(names.BY_NAME["interconnect"], "qemu", {})
    assert "no hypervisor" in names.why_not(names.BY_NAME["hv"], "native", {})
    assert names.why_not(names.BY_NAME["hv"], "qemu", {}) is None
    assert "not in the suites" in names.why_not(names.BY_NAME["llc"], "qemu", {"image": "linux-rt"})


def test_the_lock_channel_needs_a_measurer_with_sibling_vcpus():
    lock = names.BY_NAME["lock"]
    why = names.why_not(lock, "native", {}, vcpus=1)
    assert "runs 1 vCPU" in why and "measurer.vcpus = 2" in why
    assert names.why_not(lock, "native", {}, vcpus=2) is None
