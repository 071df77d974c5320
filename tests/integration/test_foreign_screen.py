"""A measuring image no one here wrote, as a user tries it: a bandwidth tool that draws
its screen with cursor addressing and never sends a newline (tests/framework/screen_image.py,
a multiboot ELF QEMU boots in a second), the measurer of a campaign read with a `regex`
that declares no `begin`. Its figures, printed in GB/s and MB/s, become throughput
samples in MB/s, every figure of a screen row a sample; the run begins at the first
figure and passes at its duration. A pattern that matches nothing fails the run, and the
reason says what the console showed.
"""
from __future__ import annotations

import json
import shutil

import pytest

from tests.framework import screen_image
from tests.framework.cli import campaign_dir, run_meta, write_spec, xtalk

SPEC = """
name = "bandwidth"
cpus = [0]
[backend]
kind = "qemu"
[run]
duration_s = 2
boot_timeout_s = {boot_timeout}
[measurer]
bench = "bwbench"
image = "bwbench.elf"
output = "regex"
[measurer.parser]
sample = '{sample}'
unit = "{unit}"
metrics = {metrics}
[matrix]
placement = ["solo"]
"""


def spec(tmp_path, boot_timeout=30, sample=screen_image.PARSER["sample"]):
    options = screen_image.PARSER
    return write_spec(tmp_path, SPEC.format(boot_timeout=boot_timeout, sample=sample, unit=options["unit"],
                                            metrics=json.dumps(options["metrics"])))


@pytest.fixture
def bwbench(tmp_path):
    if shutil.which("qemu-system-x86_64") is None:
        pytest.skip("qemu-system-x86_64 is not installed: QEMU cannot boot the image here")
    if screen_image.image(tmp_path) is None:
        pytest.skip("no gcc that assembles a 32-bit image (-m32) here")
    return tmp_path


def test_a_screen_drawn_with_cursor_addressing_gives_throughput_samples_in_their_units(bwbench):
    out = bwbench / "out"
    res = xtalk("run", spec(bwbench), "--out", out, "--json", timeout=300)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-3000:]
    meta = run_meta(out, "solo-r1")
    console = (campaign_dir(out) / "runs" / "solo-r1" / "console" / "measurer.log").read_bytes()
    assert meta["status"] == "pass", (meta["reason"], console[-300:])
    assert b"\n" not in console and b"\x1b[4;29H48.7 GB/s" in console  # the screen as drawn
    assert {m["name"]: (m["unit"], m["kind"]) for m in meta["metrics"].values()} == {
        name: ("MB/s", "throughput") for name in screen_image.PARSER["metrics"]}
    assert meta["sample_count"] == len(screen_image.EXPECTED)
    shown = json.loads(xtalk("show", "bandwidth", "--out", out, "--json").stdout)
    got = {s["metric"]: (s["n"], s["min"], s["max"]) for s in shown["stats"]}
    expected: dict[str, list[int]] = {}
    for name, value in screen_image.EXPECTED:
        expected.setdefault(name, []).append(value)
    assert got == {name: (2, min(v), max(v)) for name, v in expected.items()}, shown["stats"]
    table = xtalk("show", "bandwidth", "--out", out).stdout
    assert all(f"│ {name} " in line and "MB/s" in line for name in expected for line in table.splitlines()
               if line.startswith(f"│ {name} ")), table


def test_a_screen_the_pattern_never_matches_fails_with_what_the_console_showed(bwbench):
    out = bwbench / "out"
    res = xtalk("run", spec(bwbench, boot_timeout=3, sample=r"(?P<metric>L4): (?P<value>[\d.]+) MB/s"), "--out", out,
                timeout=300)
    assert res.returncode == 3, res.stderr  # a failed run: the campaign itself went through
    reason = run_meta(out, "solo-r1")["reason"]
    size = len(screen_image.SCREEN)
    assert reason == ("hung: no sample of output 'regex' (no line matched `sample`; without `begin` the first "
                      f"sample begins) within boot_timeout_s = 3 s (console: {size:,} bytes, last text: "
                      "'Memory: 12.3 GB/s'); where its work takes longer (a large size, a slow guest), give it the "
                      "time: --set run.boot_timeout_s=6"), reason
