import subprocess
import sys
import tomllib

import pytest

from xtalk.parsers import get, option_problems, parse_log
from xtalk.parsers.regex import RegexParser

from tests.framework.repo import ROOT

# the example of docs/guests.md
GUIDE = (ROOT / "docs" / "guests.md").read_text().split("### A regex parser", 1)[1]
DOCS = tomllib.loads(GUIDE.split("```toml\n", 1)[1].split("```", 1)[0])["measurer"]["parser"]
LOG = """\
lat[irq]=5 ns
MyRTOS v2 starting
lat[irq]=1234 ns
\x1b[32mlat[timer]=2 us\x1b[0m\r
lat[timer]=x us
lat[irq]=1235 ns
TEST DONE
lat[irq]=9 ns
"""


def test_the_documented_example():
    p = parse_log(LOG, "regex", options=DOCS)
    samples = p.take_samples()
    names = [p.metrics[m]["name"] for m in samples["metric"]]
    assert names == ["irq", "timer", "irq"]  # not the one before the begin nor the one after the end
    assert samples["value"].tolist() == [1234, 2000, 1235] and samples["t"].tolist() == [0, 0, 0]
    assert p.metrics[0] == {"name": "irq", "unit": "ns", "kind": "latency"}
    assert p.begin == {"t0": "0"} and p.end == {"status": "pass"} and p.outcome(0) == ("pass", "")
    assert p.ends_itself is True and RegexParser.declared_metrics(DOCS) == ("irq", "timer")


def test_without_end_it_runs_for_the_duration_and_without_begin_the_first_sample_begins():
    options = {"sample": r"took (?P<value>[\d.]+) ms", "metric": "step", "unit": "ms"}
    p = parse_log("noise\ntook 1.5 ms\ntook 2 ms\n", "regex", options=options)
    assert p.ends_itself is False and RegexParser.ends_itself is True
    assert p.take_samples()["value"].tolist() == [1_500_000, 2_000_000]
    assert p.metrics[0] == {"name": "step", "unit": "ns", "kind": "duration"}
    assert p.outcome(None, reached_duration=True) == ("pass", "")
    assert RegexParser.declared_metrics(options) == ("step",)


def test_counts_cycles_and_printed_times():
    options = {"sample": r"t=(?P<t>[\d.]+) (?P<metric>\w+): (?P<value>\d+)", "unit": "count", "kind": "throughput"}
    p = RegexParser(options=options)
    p.feed("boot", 1)
    p.feed("t=0.5 msgs: 100", 1_000)
    p.feed("t=1.5 msgs: 90", 2_000)
    samples = p.take_samples()
    assert samples["t"].tolist() == [1_000 + 500_000_000, 1_000 + 1_500_000_000]
    assert samples["value"].tolist() == [100, 90] and p.metrics[0]["unit"] == "count"
    assert RegexParser.declared_metrics(options) is None  # names come from the log
    cycles = parse_log("c 77\n", "regex", options={"sample": r"c (?P<value>\d+)", "metrics": ["c"], "unit": "cycles"})
    assert cycles.metrics[0] == {"name": "c", "unit": "cycles", "kind": "duration"}
    assert cycles.take_samples()["value"].tolist() == [77]


def test_fail_counts_anywhere_and_bad_samples_fail():
    p = parse_log("PANIC at boot\nMyRTOS v1\nlat[irq]=1 ns\n", "regex", options=DOCS)
    assert p.errors == [{"msg": "PANIC at boot"}] and p.sample_count == 1
    assert p.outcome(0) == ("fail", "guest reported: PANIC at boot")
    odd = parse_log("MyRTOS v1\nlat[irq]=1 ps\n", "regex", options={**DOCS, "sample": DOCS["sample"].replace("ns|us", r"\w+")})
    assert odd.sample_count == 0 and "no sample in 'lat[irq]=1 ps'" in odd.errors[0]["msg"]
    cut = parse_log("MyRTOS v1\nlat[irq]=1 ns\n", "regex", options=DOCS)
    assert cut.outcome(0)[0] == "fail" and cut.end is None


@pytest.mark.parametrize("options,where,words", [
    ({"sample": "("}, ("sample",), "not a regular expression: missing )"),
    ({"sample": r"lat=(?P<valu>\d+)", "metrics": ["lat"]}, ("sample",), "named group `value`"),
    ({"sample": r"(?P<value>\d+)"}, ("metric",), "name the metric"),
    ({"sample": r"(?P<value>\d+)", "metric": "x", "metrics": ["lat"]}, ("metric",), "'x' is not one of `metrics`"),
    ({"sample": r"(?P<value>\d+)", "metric": "x", "end": "["}, ("end",), "not a regular expression: missing ]"),
    ({"sample": r"(?P<value>\d+) \1", "metric": "x"}, ("sample",),
     "not a pattern xtalk can run in linear time (RE2): backreferences, look-arounds"),
    ({"sample": r"(?P<value>\d+)", "metric": "x", "begin": r"(?<=v)2"}, ("begin",),
     "linear time (RE2): backreferences, look-arounds, atomic groups, possessive repeats and (?x) are not supported, "
     "and \\Z is written \\z: invalid perl operator: (?<="),
    ({"sample": r"(?P<value>\d+)", "metric": "x", "fail": r"(?P<e>E)(?P=e)"}, ("fail",), "(RE2)"),
    ({"sample": r"a=(?P<value>\d+)|b=(?P<value>\d+)", "metric": "x"}, ("sample",),
     "the group `value` is named twice: name each group once"),
    ({"sample": "\udcff(?P<value>\\d+)", "metric": "x"}, ("sample",), "not UTF-8 text: '\\udcff' at character 0"),
    ({"sample": r"(?P<value>\d+)", "metric": "x", "unit": "parsec"}, ("unit",), "no unit 'parsec': the units a sample can be stored in are ns, us, ms, s, count, cycles, B/s"),
    ({"sample": r"(?P<value>\d+)", "metric": "x", "unit": "mb/s"}, ("unit",), "no unit 'mb/s' (did you mean MB/s?)"),
    ({"sample": r"(?P<value>\d+)", "metric": "x", "kind": "speed"}, ("kind",), "'duration', 'throughput'"),
    ({"sample": r"(?P<value>\d+)", "metric": "x", "patern": "y"}, ("patern",), "unknown option"),
    ({}, ("sample",), "Field required"),
])
def test_option_problems_name_the_option(options, where, words):
    (problem,) = option_problems("regex", options)
    assert problem[0] == where and words in problem[1], problem


def test_one_metric_in_metrics_names_the_samples():
    options = {"sample": r"lat=(?P<value>\d+)", "metrics": ["lat"]}
    assert option_problems("regex", options) == []
    assert get("regex").declared_metrics(options) == ("lat",)
    p = parse_log("lat=3\n", "regex", options=options)
    assert p.metrics[0]["name"] == "lat" and p.take_samples()["value"].tolist() == [3]


def test_a_pattern_that_backtracks_in_python_runs_in_linear_time():
    """`(a+)+$` takes Python's `re` some 2^40 steps on 40 a's and a `!`; RE2 one pass. In a
    child process, which the timeout kills, as no thread could stop a backtracking match."""
    code = ("from xtalk.parsers import parse_log\n"
            "p = parse_log('1' + 'a' * 40 + '!\\n1aa\\n', 'regex', "
            "options={'sample': r'(?P<value>\\d+)(a+)+$', 'metric': 'x'})\n"
            "print(p.take_samples()['value'].tolist(), p.errors)\n")
    try:
        child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail("one line of 41 characters took over 20 s: the pattern backtracks")
    assert child.stdout.strip() == "[1] []", child.stderr


def test_a_value_too_large_to_store_fails_the_guest_with_a_reason_not_a_traceback():
    """The adversarial probe: a 26-digit value raised OverflowError when the samples were
    stored (a traceback, exit 3)."""
    from xtalk.parsers.regex import RegexParser
    parser = RegexParser(options={"sample": r"lat: (?P<value>\d+)", "metric": "lat"})
    for line in ("lat: 12345678901234567890123456", "lat: 1"):
        parser.parse(line, 0)
    assert ["cannot be stored" in e["msg"] for e in parser.errors] == [True]
    assert list(parser.take_samples()["value"]) == [1]  # the storable one, stored
