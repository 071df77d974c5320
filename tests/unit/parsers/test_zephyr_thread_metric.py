import pytest

from xtalk.parsers import parse_log
from xtalk.parsers.zephyr_thread_metric import TESTS
from xtalk.parsers.zephyr_thread_metric import ZephyrThreadMetricParser as Parser

from tests.framework.repo import ROOT

LOG = (ROOT / "tests" / "data" / "zephyr" / "thread_metric_preemptive-qemu_x86_64-tcg.log").read_text()
S = 1_000_000_000


def parse(text: str):
    return parse_log(text, "zephyr-thread-metric")


def test_the_real_log_gives_one_count_per_period_at_the_printed_time():
    p = parse(LOG)
    samples = p.take_samples()
    assert samples["value"].tolist() == [2574615, 2574967, 2574966]
    assert samples["t"].tolist() == [30 * S, 60 * S, 90 * S]
    assert p.metrics == {0: {"name": "tm_preemptive_scheduling", "unit": "count", "kind": "throughput"}}
    assert p.begin == {"t0": "0", "zephyr": "bc01be237197"} and p.errors == [] and p.end is None
    assert p.outcome(None, reached_duration=True) == ("pass", "")
    assert p.outcome(0) == ("fail", "the guest exited (status 0) before the output 'zephyr-thread-metric' "
                                    "parser saw its end")


def test_it_never_ends_by_itself_and_declares_every_variant():
    assert Parser.ends_itself is False and Parser().ends_itself is False
    assert len(Parser.benches) == 8 and Parser.benches[0] == "preemptive"
    assert set(Parser.metric_names) == set(TESTS.values()) and len(Parser.metric_names) == 8


def test_live_times_are_the_banner_plus_the_relative_time():
    p = Parser()
    p.feed("*** Booting Zephyr OS build v4.3.0 ***\r\n", 7 * S)
    p.feed("**** Thread-Metric Preemptive Scheduling Test **** Relative Time: 30\r\n", 37 * S + 5)
    p.feed("Time Period Total:  2574615\r\n", 37 * S + 9)
    assert p.take_samples()["t"].tolist() == [37 * S]


# the report line of every variant, as Zephyr's tests/benchmarks/thread_metric/src/tm_*_test.c print it
VARIANTS = {
    "tm_basic_processing": "Basic Single Thread Processing",
    "tm_cooperative_scheduling": "Cooperative Scheduling",
    "tm_preemptive_scheduling": "Preemptive Scheduling",
    "tm_interrupt_processing": "Interrupt Processing",
    "tm_interrupt_preemption_processing": "Interrupt Preemption Processing",
    "tm_message_processing": "Message Processing",
    "tm_synchronization_processing": "Synchronization Processing",
    "tm_memory_allocation": "Memory Allocation",
}


def synthetic(test: str, totals: list[int]) -> str:
    """A console log in the real log's form (SeaBIOS, banner, CRLF) for another variant."""
    lines = ["SeaBIOS (version 1.16.2-debian-1.16.2-1)", "Booting from ROM..",
             "*** Booting Zephyr OS build bc01be237197 ***"]
    for i, total in enumerate(totals, 1):
        lines += [f"**** Thread-Metric {test} Test **** Relative Time: {30 * i}", f"Time Period Total:  {total}", ""]
    return "\r\n".join(lines) + "\r\n"


@pytest.mark.parametrize("metric", sorted(VARIANTS))
def test_every_variant_is_its_own_metric(metric):
    p = parse(synthetic(VARIANTS[metric], [1000, 1001, 999, 1002]))
    samples = p.take_samples()
    assert p.metrics == {0: {"name": metric, "unit": "count", "kind": "throughput"}}
    assert samples["value"].tolist() == [1000, 1001, 999, 1002]
    assert samples["t"].tolist() == [30 * S, 60 * S, 90 * S, 120 * S]
    assert p.outcome(None, reached_duration=True) == ("pass", "")


def test_cooperative_counters_go_to_meta_and_the_tests_own_error_fails():
    text = synthetic("Cooperative Scheduling", [500]).replace(
        "Time Period Total", "tm_cooperative_thread_0_counter: 100\r\ntm_cooperative_thread_1_counter: 101\r\n"
        "ERROR: Invalid counter value(s). Cooperative counters should not be more that 1 different than the "
        "average!\r\n   Average: 100, 0: 100, 1: 101, 2: 97, 3: 101, 4: 101\r\nTime Period Total")
    p = parse(text)
    assert p.meta == {"tm_cooperative_thread_0_counter": "100", "tm_cooperative_thread_1_counter": "101"}
    assert p.sample_count == 1
    assert p.errors == [{"msg": "Invalid counter value(s). Cooperative counters should not be more that 1 "
                                "different than the average! (Average: 100, 0: 100, 1: 101, 2: 97, 3: 101, 4: 101)"}]
    assert p.outcome(None, reached_duration=True)[0] == "fail"


def test_a_fatal_error_ends_the_guest_and_an_unknown_test_keeps_its_name():
    p = parse(synthetic("Preemptive Scheduling", [5]) + ">>> ZEPHYR FATAL ERROR 4: Kernel panic on CPU 0\r\n")
    assert p.status == "fail" and p.errors == [{"msg": ">>> ZEPHYR FATAL ERROR 4: Kernel panic on CPU 0"}]
    odd = parse(synthetic("Mutex Barrage", [7]))
    assert [m["name"] for m in odd.metrics.values()] == ["tm_mutex_barrage"]


def test_a_total_without_its_report_line_or_another_benchmark_is_no_sample():
    assert parse("*** Booting Zephyr OS build x ***\nTime Period Total:  5\n").sample_count == 0
    latency = (ROOT / "tests" / "data" / "zephyr" / "latency_measure-qemu_x86_64-tcg.log").read_text()
    p = parse(latency)
    assert p.sample_count == 0 and p.outcome(None, reached_duration=True)[0] == "fail"
