"""spec/sizes.py: size parameters in bytes with the caches the measurer reported (else the
host's), recorded per run for every guest that runs, and labelled for the report."""
import pytest

from tests.framework.hosts import MIB, host
from xtalk.spec.plan import plan
from xtalk.spec.sizes import bench_sizes, human, label, reported_caches, run_sizes
from xtalk.spec.load import parse_campaign

SPEC = """
name = "s"
[measurer]
bench = "pointer_chase"
[[stressors]]
name = "copy"
bench = "memcpy"
instances = 2
[matrix]
placement = ["solo", "other-core"]
"stressors.copy.params.size" = ["l1/2", "l2/2", "llc/2", "llc*1.25", 4096]
"""
GUEST = {"llc_bytes": str(8 * MIB), "l3_bytes": str(8 * MIB), "l2_bytes": str(MIB), "l1_bytes": "32768",
         "cpus": "1"}


def runs():
    spec, raw = parse_campaign(SPEC, "s.toml")
    return plan(spec, raw)


def test_cache_units_resolve_with_what_the_measurer_reported():
    record = run_sizes(runs()[3], GUEST, host(480))
    assert record["caches"] == {"l1": 32768, "l2": MIB, "l3": 8 * MIB, "llc": 8 * MIB, "source": "measurer"}
    assert record["sizes"] == {"measurer.params.size": {"text": "l2*4", "bytes": 4 * MIB, "source": "measurer"},
                               "stressors.copy.params.size": {"text": "llc/2", "bytes": 4 * MIB, "source": "measurer"}}


def test_without_a_report_the_hosts_caches_and_solo_records_only_its_measurer():
    solo, *others = runs()
    assert run_sizes(solo, {}, host(480)) == {
        "caches": {"l1": 48 << 10, "l2": 2 * MIB, "l3": 480 * MIB, "llc": 480 * MIB, "source": "host"},
        "sizes": {"measurer.params.size": {"text": "l2*4", "bytes": 8 * MIB, "source": "host"}}}
    texts = [run_sizes(r, {}, host(480))["sizes"]["stressors.copy.params.size"] for r in others]
    assert [t["bytes"] for t in texts] == [24 << 10, MIB, 240 * MIB, 600 * MIB, 4096]
    assert texts[-1]["text"] == "4096"


def test_unknown_caches_and_bad_text_are_no_bytes():
    assert bench_sizes("cache_thrash", {}, {}) == {"size": ("llc*1.5", None)}
    assert bench_sizes("membw", {"size": "big"}, {"llc": 1}) == {"size": ("big", None)}
    assert bench_sizes("no_such_bench", {}, {"llc": 1}) == {}
    assert reported_caches({"llc_bytes": "0", "l2_bytes": "x", "l1_bytes": "4096"}) == {"l1": 4096}


@pytest.mark.parametrize("text, nbytes, shown", [
    ("llc/2", 240 * MIB, "llc/2 (240 MiB)"), ("l1/2", 24 << 10, "l1/2 (24 KiB)"),
    ("llc*1.25", 600 * MIB, "llc*1.25 (600 MiB)"), ("4096", 4096, "4 KiB"), ("llc*4", 1920 * MIB, "llc*4 (1.9 GiB)"),
    ("l3", None, "l3"), ("100", 100, "100 B")])
def test_labels_show_the_text_and_the_bytes(text, nbytes, shown):
    assert label(text, nbytes) == shown


def test_human_bytes():
    assert [human(x) for x in (1536, MIB, 3 << 30, 0)] == ["1.5 KiB", "1 MiB", "3 GiB", "0 B"]
