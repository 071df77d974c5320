"""The report's first screen is the answer: a short real native campaign (timer latency with
a memory-copying neighbour switched on and off, paired windows, a deadline, a gate) and one
whose runs all hang, rendered in headless Chromium at a laptop's window (1366x768): the
runs' status, the strongest verdict and the worst case against the deadline lie above the
fold, failure first where runs failed, and the gates are a small badge only where the spec
has gates. The same headline in `xtalk run` (terminal and --json), `xtalk show` and
report.json/report.md."""
from __future__ import annotations

import json
import re

import pytest

from tests.framework.browser import HEADLINE, above_fold, headline_text, layout, screenshot
from tests.framework.cli import campaign_dir, write_spec, xtalk

LAPTOP = "1366,768"

SPEC = """
name = "first"
description = "timer latency next to a memory-copying neighbour"
cpus = [0, 1]
[run]
duration_s = 2
grace_s = 5
[measurer]
bench = "timer_latency"
params = { sustain = false, period_us = 200 }
[[stressors]]
name = "copy"
bench = "memcpy"
[paired]
off_s = 0.12
on_s = 0.12
[matrix]
placement = ["other-core", "same-core"]
[[deadlines]]
metric = "timer_latency"
ns = 1_000_000
[[gates]]
metric = "timer_latency"
stat = "max"
max_cycles = 1e15
baseline = "placement=other-core"
"""

HUNG = """
name = "hung"
cpus = [0, 1]
[run]
duration_s = 1
grace_s = 1
[measurer]
bench = "cpu_spin"
params = { duration_s = 0 }
[[stressors]]
name = "copy"
bench = "memcpy"
[matrix]
placement = ["solo", "same-core"]
"""

@pytest.fixture(autouse=True)
def built(native_bench):
    return native_bench


@pytest.mark.slow
def test_first_screen_shows_the_runs_the_verdict_and_the_worst_case(tmp_path, chromium):
    out = tmp_path / "out"
    res = xtalk("run", write_spec(tmp_path, SPEC), "--out", out, "--report", "--json")
    assert res.returncode == 0, res.stdout + res.stderr
    head = json.loads(res.stdout)["headline"]
    runs = head["runs"]
    assert (runs["state"], runs["total"], runs["passed"], runs["text"]) == ("passed", 2, 2, "2 of 2 runs passed")
    assert head["verdict"]["state"] in ("interference", "no-interference", "inconclusive"), head["verdict"]
    assert head["verdict"]["rows"] == 2  # the paired windows of both configurations
    (worst,) = head["worst"]  # timer_missed has no samples with sustain = false
    assert worst["metric"] == "timer_latency" and worst["time"] and worst["stat"] == "max"
    assert worst["quantile"] in ("p90", "p99", "p99.9", "p99.99")  # >= 10 samples above it in ~8,000
    (deadline,) = worst["deadlines"]
    assert deadline["deadline_text"] == "1 ms" and deadline["met"] is (deadline["above"] == 0)
    assert head["gates"] == {"overall": "PASS", "failed": 0, "total": 1, "text": "PASS: 1 of 1 passed"}

    dest = campaign_dir(out) / "report"
    report = json.loads((dest / "report.json").read_text())
    assert report["headline"] == head  # one headline, whichever command computed it
    md = (dest / "report.md").read_text().split("\n## ")[0]
    assert "**Runs:** **2 of 2 runs passed**" in md and worst["text"] in md and "Overall" not in md
    shown = xtalk("show", "first", "--out", out)
    assert shown.returncode == 0, shown.stderr
    first = shown.stdout.split("─")[0]  # before the first section's rule
    assert "runs:       2 of 2 runs passed" in first and head["verdict"]["text"] in first.replace("\n", " ")

    page = dest / "report.html"
    text = page.read_text()
    assert "NO GATES" not in text
    screenshot(chromium, page, tmp_path / "first-screen.png", tmp_path / "chrome", LAPTOP)
    boxes = layout(chromium, page, tmp_path / "chrome2", HEADLINE, LAPTOP)
    runs_box, verdict, worst_box, gates = (above_fold(boxes, k) for k in ("runs", "verdict", "worst", "gates"))
    assert runs_box[1] <= verdict[0] and verdict[1] <= worst_box[0] and worst_box[1] <= gates[0]
    assert "2 of 2 runs passed" in headline_text(text, "runs")
    assert head["verdict"]["text"] in headline_text(text, "verdict")
    assert "max " in headline_text(text, "worst") and "vs deadline 1 ms" in headline_text(text, "worst")
    assert re.search(r'<span class="badge PASS">gates PASS: 1 of 1 passed</span>', text)
    above_fold(boxes, "first_verdict")  # the answer's first row
    assert boxes["headings"][0] >= gates[1]  # the headline comes before every section


def test_a_campaign_whose_runs_failed_shows_failure_first(tmp_path, chromium):
    out = tmp_path / "out"
    res = xtalk("run", write_spec(tmp_path, HUNG), "--out", out, "--report")
    assert res.returncode == 3, res.stdout + res.stderr
    lines = res.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("campaign hung-"))
    assert lines[at + 1].startswith("  machine:    "), lines[at:]  # whether this machine could measure at all
    assert lines[at + 2].startswith("  runs:       no run passed: 2 of 2 failed (2 hung); first: "), lines[at:]
    assert lines[at + 3] == "  verdict:    no verdict: no run passed"
    assert lines[at + 4] == "  worst case: nothing measured"

    page = campaign_dir(out) / "report" / "report.html"
    text = page.read_text()
    assert "NO GATES" not in text and 'class="badge' not in text.split("<h2")[0]  # no gates in the spec: no badge
    screenshot(chromium, page, tmp_path / "failed-screen.png", tmp_path / "chrome", LAPTOP)
    boxes = layout(chromium, page, tmp_path / "chrome2", HEADLINE, LAPTOP)
    runs = above_fold(boxes, "runs")
    assert runs[1] <= min(boxes[key][0] for key in ("verdict", "worst", "headings"))
    assert boxes["gates"] is None
    shown = headline_text(text, "runs")
    assert shown.startswith("runs no run passed: 2 of 2 failed (2 hung)"), shown
    assert 'data-headline="runs" data-state="failed"' in text and "hl-runs bad" in text  # red
    report = json.loads((page.parent / "report.json").read_text())
    assert report["headline"]["runs"]["state"] == "failed" and report["headline"]["gates"] is None
