import re

import numpy as np

from xtalk.parsers import option_problems, parse_log
from xtalk.parsers.cyclictest import CyclictestParser as Parser

from tests.framework.repo import ROOT

DATA = ROOT / "tests" / "data" / "cyclictest"
VALUE = re.compile(r"^\s*(\d+):\s*(\d+):\s*(\d+)$", re.M)


def read(name: str) -> str:
    return (DATA / name).read_text()


def parse(text: str, **options):
    return parse_log(text, "cyclictest", options=options)


def by_metric(p) -> dict[str, np.ndarray]:
    samples = p.take_samples()
    assert samples["seq"].tolist() == list(range(len(samples)))
    return {p.metrics[m]["name"]: samples[samples["metric"] == m] for m in np.unique(samples["metric"])}


def test_verbose_lines_are_samples_in_ns_and_the_final_summary_ends():
    text = read("verbose.log")
    printed = VALUE.findall(text)
    assert len(printed) == 1970
    p = parse(text)
    got = by_metric(p)
    assert list(got) == ["cyclictest_t0"]
    assert got["cyclictest_t0"]["value"].tolist() == [int(us) * 1000 for _, _, us in printed]
    assert not got["cyclictest_t0"]["flags"].any()
    assert p.metrics[0] == {"name": "cyclictest_t0", "unit": "ns", "kind": "latency"}
    assert p.meta == {"t0.prio": "0", "t0.interval_us": "1000", "t0.cycles": "1980", "t0.min_us": "36",
                      "t0.act_us": "106", "t0.avg_us": "110", "t0.max_us": "4594"}
    assert p.begin == {"t0": "0"} and p.end == {"status": "pass"} and p.outcome(0) == ("pass", "")


def test_each_thread_is_its_own_metric():
    text = read("verbose-t2.log")
    p = parse(text)
    got = by_metric(p)
    for thread in ("0", "1"):
        printed = [int(us) * 1000 for t, _, us in VALUE.findall(text) if t == thread]
        assert got[f"cyclictest_t{thread}"]["value"].tolist() == printed
    assert (len(got["cyclictest_t0"]), len(got["cyclictest_t1"])) == (981, 652)
    assert p.meta["t1.interval_us"] == "1500" and p.meta["t1.max_us"] == "3667"


def test_nsecs_values_are_taken_as_printed():
    text = read("verbose-nsecs.log")
    p = parse(text, nsecs=True)
    values = by_metric(p)["cyclictest_t0"]["value"]
    assert values.tolist() == [int(ns) for _, _, ns in VALUE.findall(text)] and len(values) == 997
    assert p.meta["t0.max_ns"] == "1900970"
    assert parse(text).take_samples()["value"][0] == 1000 * values[0]  # the same log read as us


def test_a_histogram_becomes_its_samples_and_overflows_are_lower_bounds():
    p = parse(read("hist-h50.log"))
    t0 = by_metric(p)["cyclictest_t0"]
    assert len(t0) == 3 + 1983  # # Total: 3, # Histogram Overflows: 1983
    assert t0["value"][:3].tolist() == [25_000, 36_000, 44_000]  # one each in buckets 25, 36, 44
    assert (t0["value"][3:] == 50_000).all() and t0["flags"][3:].tolist() == [1] * 1983 and not t0["flags"][:3].any()
    assert p.meta == {"t0.total": "3", "t0.min_us": "25", "t0.avg_us": "100", "t0.max_us": "4568",
                      "t0.overflows": "1983"}
    assert p.end == {"status": "pass"} and p.outcome(0) == ("pass", "")


def test_a_histogram_with_its_summary_column_has_only_the_threads():
    text = read("hist-H400-t2.log")
    rows = [[int(v) for v in line.split()] for line in text.splitlines() if re.fullmatch(r"\d{6}\s.*", line)]
    assert len(rows) == 400 and all(len(r) == 4 and r[3] == r[1] + r[2] for r in rows)
    p = parse(text)
    got = by_metric(p)
    assert list(got) == ["cyclictest_t0", "cyclictest_t1"]
    for i, (total, overflows) in enumerate(((1978, 9), (1960, 14))):
        values = got[f"cyclictest_t{i}"]
        inside = values[values["flags"] == 0]["value"] // 1000
        assert len(inside) == total and np.bincount(inside, minlength=400).tolist() == [r[1 + i] for r in rows]
        assert (values[values["flags"] == 1]["value"] == 400_000).sum() == overflows
    assert p.meta["t1.max_us"] == "4246" and "t2.max_us" not in p.meta and "t2.total" not in p.meta


def test_a_histogram_next_to_verbose_values_adds_no_samples():
    verbose = "\n".join(read("verbose.log").splitlines()[:-1])  # no summary: -h has none
    p = parse(verbose + "\n" + read("hist-h50.log"))
    assert p.sample_count == 1970 and p.meta["t0.overflows"] == "1983" and p.status == "pass"


def test_live_summaries_are_meta_only():
    p = parse(read("summary-live.log"))
    assert p.sample_count == 0 and p.begin is not None and p.end is None
    assert p.meta["t0.max_us"] == "141" and p.meta["t1.max_us"] == "1165"
    assert p.outcome(0)[0] == "fail"


def test_a_guest_that_exits_after_measuring_passes():
    cut = parse("\n".join(read("verbose.log").splitlines()[:100]))
    assert cut.end is None and cut.sample_count == 96
    assert cut.outcome(0) == ("pass", "")
    assert cut.outcome(None, reached_duration=True)[0] == "fail"  # still running at the run's end: hung


def test_samples_carry_their_arrival_time():
    p = Parser()
    p.feed("# /dev/cpu_dma_latency set to 0us", 10)
    p.feed("       0:       0:      82", 20)
    p.feed("\x1b[4A       1:       7:     100\r", 30)
    samples = p.take_samples()
    assert p.begin["t0"] == "10" and samples["t"].tolist() == [20, 30] and samples["value"].tolist() == [82_000, 100_000]


def test_cyclictest_failures_fail_the_guest():
    p = parse(read("verbose.log") + "FATAL: failed to create thread 1: Operation not permitted\n"
              "Unable to change scheduling policy!\n")
    assert [e["msg"] for e in p.errors] == ["FATAL: failed to create thread 1: Operation not permitted",
                                            "Unable to change scheduling policy!"]
    assert p.outcome(0)[0] == "fail"


def test_options():
    assert option_problems("cyclictest", {"nsecs": True}) == []
    assert option_problems("cyclictest", {"nsec": True}) == [(("nsec",), "unknown option for the cyclictest output parser")]
    assert Parser.metric_names == ("cyclictest_t<N>",) and Parser.benches == ("cyclictest",)


def test_spec_check_holds_deadlines_to_the_per_thread_metric_names(tmp_path):
    from xtalk.spec.workloads import _foreign_metric_problems
    measurer = {"bench": "cyclictest", "output": "cyclictest", "image": "k"}
    ok = {"deadlines": [{"metric": "cyclictest_t3", "ns": 1}]}
    bad = {"deadlines": [{"metric": "cyclictest_tx", "ns": 1}]}
    assert _foreign_metric_problems(ok, measurer) == []
    ((loc, message),) = _foreign_metric_problems(bad, measurer)
    assert loc == ("deadlines", 0, "metric") and "reports no metric 'cyclictest_tx'" in message
