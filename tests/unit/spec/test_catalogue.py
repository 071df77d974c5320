"""The bench catalogue: value checks that mirror the guests' (guests/lib/cmdline.c), and
the catalogue the programs print: complete and consistent with itself."""
import re

import pytest

from tests.framework.repo import ROOT
from xtalk.spec import catalogue
from xtalk.spec.catalogue import Metric, Param, in_range, size_bytes


@pytest.mark.parametrize("param,good,bad", [
    (Param("n", "u64", "[1,100]", "1"), [1, 100, 0x10], [0, 101, -1, 1.0, "5", True]),
    (Param("n", "u64", None, "1"), [0, 2**64 - 1], [2**64, -1]),
    (Param("x", "double", "(0,1e7]", "1"), [1e7, 0.5, 3], [0, 1.0000001e7, float("inf"), float("nan"), "1", False]),
    (Param("s", "size", "[8,1m]", "64"), [8, "1m", "64k", "1.5k", "llc*2", "l2/2", "4kb"],
     [7, "1.5m", "12q", "llc*0", "4 m", 1.5, "", True]),
    (Param("b", "bool", None, "1"), [True, False, 0, 1], [2, "yes", 1.0]),
    (Param("w", "word", "read|write", "read"), ["read", "write"], ["sideways", "read|write", 1]),
    (Param("p", "word", "none|0|1", "none"), ["none", "0", 1], [2, True, 1.0, "2"]),
    (Param("t", "text", None, None), ["0,2-3", 3, "--vm-keep,--x", ""], ["a b", True]),
])
def test_values_are_checked_as_the_guest_checks_their_text(param, good, bad):
    assert [v for v in good if param.problem(v)] == []
    assert [v for v in bad if not param.problem(v)] == []


def test_messages_say_what_was_expected_and_what_came():
    assert Param("size_kib", "u64", "[1,4194304]", "1171").problem("big") == \
        'expected an unsigned integer in [1,4194304], not "big"'
    assert Param("mode", "word", "read|write", "read").problem("up") == 'expected one of read, write, not "up"'


def test_sizes_and_ranges():
    assert size_bytes("1171k") == 1171 * 1024 and size_bytes("1m/4") == 262144 and size_bytes("llc*1.5") is None
    with pytest.raises(ValueError):
        size_bytes("l4")
    assert in_range(5, "[5,)", False) and not in_range(5, "(5,)", False) and in_range(0.99, "(0.05,1)", False)
    assert in_range(1 << 20, "[8,1m]", True) and not in_range((1 << 20) + 1, "[8,1m]", True)


def test_metric_names_with_a_thread_number():
    metric = Metric("cyclictest_t<N>", "cycles", "latency")
    assert metric.matches("cyclictest_t0") and metric.matches("cyclictest_t12")
    assert not metric.matches("cyclictest_t") and not metric.matches("cyclictest_tx")


@pytest.fixture(scope="module")
def built() -> catalogue.Catalogue:
    return catalogue.load()  # make catalogue: the programs' own declarations


def test_the_catalogue_holds_every_bench_of_every_program(built):
    probe = re.findall(r"^XT_BENCH\((\w+)\)", (ROOT / "guests/lib/bench_list.h").read_text(), re.M)
    assert list(built.suites["probe"].benches) == probe
    assert {"kernel_ops", "cyclictest", "stress_ng", "tm_coop", "heap"} <= set(built.suites["posix"].benches)
    assert list(built.suites["steal"].benches) == ["steal"]
    assert "iterations" not in built.suites["steal"].common and "cpus" in built.suites["posix"].common


def test_a_bench_declares_the_buffers_it_allocates(built):
    """memcpy's source and destination (guests/bench/memcpy.c), cache_probe's room for one
    piece of hi= bytes (guests/bench/cache_probe.c), one buffer elsewhere."""
    buffers = {(s.name, b.name): b.buffers for s in built.suites.values() for b in s.benches.values()}
    assert buffers.pop(("probe", "memcpy")) == 2 and buffers.pop(("probe", "cache_probe")) == 2
    assert set(buffers.values()) == {1}


RATES = ("iter/s", "DMIPS", "MiB/s", "MB/s")  # units of the probe's rate cases


def test_the_probe_benches_of_xtalk_rt_are_the_probes(built):
    """seed 003's benches that the Linux-RT suite carries: the same parameters and metrics."""
    probe, posix = built.suites["probe"].benches, built.suites["posix"].benches
    for name in ("dhrystone", "cachebench", "stream"):
        assert (posix[name].params, posix[name].metrics) == (probe[name].params, probe[name].metrics)


def test_every_declaration_is_consistent(built):
    for suite in built.suites.values():
        for bench in suite.benches.values():
            assert bench.role in ("measurer", "stressor"), bench
            for metric in bench.metrics:
                assert metric.kind in ("duration", "throughput", "latency", "gap", "loss"), (bench.name, metric)
                assert metric.unit in ("cycles", "count") or (metric.kind == "throughput" and metric.unit in RATES), \
                    (bench.name, metric)
            for param in list(bench.params.values()) + list(suite.common.values()):
                assert param.type in ("u64", "double", "size", "bool", "word", "text"), param
                if param.range and param.type != "word":
                    assert re.fullmatch(r"[\[(][^,]*,[^,]*[\])]", param.range), param
                    in_range(1, param.range, param.type == "size")  # parses
                default = param.default
                if default is not None and param.type in ("u64", "double", "bool"):
                    default = {"u64": lambda d: int(d, 0), "double": float, "bool": lambda d: d in ("1", "true")}[
                        param.type](default)
                assert default is None or param.problem(default) is None, (bench.name, param)
