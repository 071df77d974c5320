"""Console bytes into parser lines (parsers/screen.py), and a recorded full-screen console
(tests/framework/screen_image.py: cursor addressing, no newline, GB/s and MB/s) read by
the regex parser into throughput samples in MB/s."""
from __future__ import annotations

import tomllib

import pytest

from xtalk.parsers import option_problems, parse_log
from xtalk.parsers.regex import RegexParser
from xtalk.parsers.screen import SETTLE_NS, ConsoleLines, console_lines
from xtalk.parsers.units import convert

from tests.framework import screen_image
from tests.framework.repo import ROOT

SCREEN_LINES = [" BWBENCH 2.1  cache & memory bandwidth", "pass 1 of 2 running", "testing   0%", "testing  50%",
                "testing 100%", "L1: 95.2 GB/s L2: 48.7 GB/s L3: 30.1 GB/s", "Memory: 9850 MB/s"]


def fed(data: bytes, step: int) -> tuple[ConsoleLines, list[str]]:
    console, lines = ConsoleLines(), []
    for i in range(0, len(data), step):
        lines += console.feed(data[i:i + step])
    return console, lines


@pytest.mark.parametrize("step", [1, 2, 7, 1 << 16])
def test_a_screen_is_read_row_by_row_however_its_bytes_arrive(step):
    console, lines = fed(screen_image.SCREEN, step)  # cut inside escapes too
    assert lines == SCREEN_LINES + [line.replace("1 of", "2 of") for line in SCREEN_LINES[:5]] + [
        "L1: 96.0 GB/s L2: 47.9 GB/s L3: 29.8 GB/s"]
    assert console.screen and console.received == len(screen_image.SCREEN)
    assert console.last_text == "Memory: 12.3 GB/s"  # drawn last: no line end after it
    assert console.settled(SETTLE_NS - 1) == [] and console.settled(SETTLE_NS) == ["Memory: 12.3 GB/s"]
    assert console.settled(10 * SETTLE_NS) == [] and console.last_text == "Memory: 12.3 GB/s"


@pytest.mark.parametrize("data,lines", [
    (b"a\r\nb\nc\rd\n\n\r\n", ["a", "b", "c", "d"]),                       # every line end; blank lines dropped
    (b"\x1b[1;31mred\x1b[0m \x1b[Kx\x1b(B\x1b7\x07\x08\n", ["red x"]),     # colours, erase, charset, controls
    (b"\x1b[3;1Hx\x1b[3;1Hy\x1b[3;5Hz\x1b[4;1Hw\n", ["x", "y z", "w"]),    # back on the row: a new line
    (b"a\x1b[2Cb\x1b[Ac\x1b[5Gd\x1b[2Be\n", ["a b", "c", "d", "e"]),        # forward, up, column, down
    (b"\x1bzq\x1b\n", ["q"]),                                               # stray escapes: dropped
    ("µs=3 \u00e9\n".encode(), ["µs=3 é"]),                                 # UTF-8
])
def test_line_ends_and_escapes(data, lines):
    assert fed(data, 1)[1] == lines and fed(data, len(data))[1] == lines


@pytest.mark.parametrize("step", [1, 2, 3, 5, 1 << 16])
def test_plain_and_serial_lines_come_out_the_same_however_their_bytes_arrive(step):
    """The bytes' fast way (controls dropped from the bytes, CR LF as one end) gives what the
    text's way gives: a CR LF or a character of several bytes cut between two reads, a
    bare CR, controls and tabs."""
    data = "µs: 12\r\nlat\x07ency\t3 €\r\n\r\nsplit\rover\nend ½\n".encode()
    assert fed(data, step)[1] == console_lines(data.decode()) == ["µs: 12", "latency\t3 €", "split", "over",
                                                                  "end ½"]


def test_a_plain_consoles_unfinished_line_waits_for_its_newline():
    console = ConsoleLines()
    assert console.feed(b"XT SAMPLE id=0 val", 0) == [] and console.settled(10 * SETTLE_NS) == []
    assert console.last_text == "XT SAMPLE id=0 val" and console.feed(b"ue=3\n") == ["XT SAMPLE id=0 value=3"]
    assert console.flush() == [] and console.last_text == "XT SAMPLE id=0 value=3"
    assert console_lines("a\rb\x1b[2;1Hc") == ["a", "b", "c"]


def test_the_recorded_screen_gives_throughput_samples_in_the_declared_unit():
    parser = RegexParser(options=screen_image.PARSER)
    console = ConsoleLines()
    for i in range(0, len(screen_image.SCREEN), 5):
        for line in console.feed(screen_image.SCREEN[i:i + 5]):
            parser.feed(line, 1_000)
    for line in console.settled(SETTLE_NS):
        parser.feed(line, 2_000)
    samples = parser.take_samples()
    names = [parser.metrics[m]["name"] for m in samples["metric"]]
    assert list(zip(names, samples["value"].tolist())) == screen_image.EXPECTED
    assert samples["t"].tolist() == [1_000] * 7 + [2_000]
    assert {m["unit"] for m in parser.metrics.values()} == {"MB/s"}
    assert {m["kind"] for m in parser.metrics.values()} == {"throughput"}
    assert parser.begin == {"t0": "1000"} and parser.outcome(None, reached_duration=True) == ("pass", "")
    logged = parse_log(screen_image.SCREEN.decode(), "regex", options=screen_image.PARSER)
    assert logged.take_samples()["value"].tolist() == [v for _, v in screen_image.EXPECTED]


def test_every_match_of_a_line_is_a_sample_in_the_metrics_unit():
    options = {"sample": r"(?P<metric>\w+)=(?P<value>[\d.]+) ?(?P<unit>\S+)", "unit": "us"}
    p = parse_log("a=1.5 ms b=2 s c=250 ns\n", "regex", options=options)
    assert p.take_samples()["value"].tolist() == [1_500_000, 2_000_000_000, 250]
    assert {m["unit"] for m in p.metrics.values()} == {"ns"}  # times are stored in ns
    rates = parse_log("x=3 kiter/s x=2.5 Miter/s\n", "regex",
                      options={"sample": r"x=(?P<value>[\d.]+) (?P<unit>\S+)", "metric": "x", "unit": "kiter/s"})
    assert rates.take_samples()["value"].tolist() == [3, 2500] and rates.metrics[0]["kind"] == "throughput"
    odd = parse_log("x=3 GB/s\n", "regex", options={"sample": r"x=(?P<value>\d+) (?P<unit>\S+)", "metric": "x"})
    assert odd.sample_count == 0 and "unit 'GB/s' does not convert into the parser's `unit` 'ns'" in odd.errors[0]["msg"]
    assert convert(1, "GiB/s", "MiB/s") == 1024 and convert(1, "MB/s", "iter/s") is None


@pytest.mark.parametrize("sample,unit,words", [
    (r"(?P<value>[\d.]+) (?P<unit>[MG]B/s)", "ns", "`sample` reads values in MB/s, GB/s, which do not convert into "
                                                  "'ns' (time): set `unit` to the one to store them in, e.g. 'MB/s'"),
    (r"bw (?P<value>[\d.]+) MB\/s", "ns", "`sample` reads values in MB/s"),
    (r"(?P<value>[\d.]+) (?P<unit>MB/sec)", "MB/s", "the group `unit` of `sample` matches no unit"),
    (r"(?P<value>[\d.]+) (?P<unit>[MG]B/s)", "GiB/S", "no unit 'GiB/S' (did you mean GiB/s?)"),
    (r"(?<value>[\d.]+) (?<unit>[MG]B/s)", "ns", "`sample` reads values in MB/s, GB/s"),  # RE2's other spelling
])
def test_spec_check_refuses_a_unit_the_samples_cannot_be_stored_in(sample, unit, words):
    (problem,) = option_problems("regex", {"sample": sample, "metric": "bw", "unit": unit})
    assert problem[0] == ("unit",) and words in problem[1], problem


@pytest.mark.parametrize("sample,unit", [
    (r"(?P<value>[\d.]+) (?P<unit>[MG]B/s)", "MB/s"), (r"(?P<value>\d+) (?P<unit>\w+)", "ns"),
    (r"(?P<value>\d+) (?P<unit>(?:k|M)?ops/s)", "ops/s"), (r"(?P<value>[\d.]+) MB/s", "MB/s"),
])
def test_units_that_convert_pass(sample, unit):
    assert option_problems("regex", {"sample": sample, "metric": "bw", "unit": unit}) == []


def test_the_documented_screen_example_is_the_one_tested():
    guide = (ROOT / "docs" / "guests.md").read_text().split("A full-screen bandwidth tool", 1)[1]
    documented = tomllib.loads(guide.split("```toml\n", 1)[1].split("```", 1)[0])["measurer"]["parser"]
    assert documented == screen_image.PARSER
