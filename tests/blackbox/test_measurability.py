"""The measurability verdict as a user meets it (issue 42): a campaign measured while
another process spins on its measured CPU says, first and in red, that this machine cannot
measure, naming that process by PID; the same campaign on a free CPU does not; `xtalk host
check` says the same in seconds before a campaign, with its exit status."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.framework.cli import write_spec, xtalk

SPEC = """
name = "measurable"
cpus = [0, 1]
[backend]
kind = "native"
[run]
duration_s = 1
repetitions = 3
[measurer]
bench = "qsort"
[[stressors]]
name = "spin"
bench = "cpu_spin"
[matrix]
placement = ["solo", "other-core"]
"""


@pytest.fixture
def spinner():
    """A process of the test's own that spins on CPU 0; stopped by its PID."""
    proc = subprocess.Popen([sys.executable, "-c", "import os; os.sched_setaffinity(0, {0})\nwhile True: pass"])
    try:
        yield proc.pid
    finally:
        proc.kill()
        proc.wait()


def machine_line(out, campaign: str) -> dict:
    return json.loads((out / campaign / "report" / "report.json").read_text())["headline"]["machine"]


def run_campaign(tmp_path) -> str:
    spec = write_spec(tmp_path, SPEC)
    res = xtalk("run", spec, "--out", tmp_path / "out", "--report", timeout=300)
    assert res.returncode == 0, res.stderr
    (campaign,) = [p.name for p in (tmp_path / "out").iterdir() if p.name.startswith("measurable-")]
    return campaign


@pytest.mark.timing
def test_a_campaign_beside_a_spinner_cannot_measure_and_names_it(tmp_path, native_bench, spinner):
    campaign = run_campaign(tmp_path)
    machine = machine_line(tmp_path / "out", campaign)
    assert machine["state"] == "cannot", machine
    assert machine["text"].startswith("cannot measure here: CPU 0 ran other work") and f"PID {spinner} " in \
        machine["text"], machine
    shown = xtalk("show", campaign, "--out", tmp_path / "out")
    assert "machine:" in shown.stdout and "cannot measure here" in shown.stdout
    html = (tmp_path / "out" / campaign / "report" / "report.html").read_text()
    assert 'data-headline="machine" data-state="cannot"' in html and "hl-machine bad" in html


@pytest.mark.timing
def test_the_same_campaign_on_a_free_cpu_can(tmp_path, native_bench):
    machine = machine_line(tmp_path / "out", run_campaign(tmp_path))
    assert machine["state"] in ("measurable", "doubtful") and "cannot" not in machine["text"], machine


@pytest.mark.timing
def test_host_check_names_the_spinner_and_exits_1_and_0_without_it(tmp_path, spinner):
    res = xtalk("host", "check", "--cpus", "0", "--seconds", "1", "--json")
    assert res.returncode == 1, res.stdout + res.stderr
    found = json.loads(res.stdout)
    assert found["measurability"]["state"] == "cannot"
    assert spinner in [p["pid"] for p in found["noise"]["busiest"]], found["noise"]
    text = xtalk("host", "check", "--cpus", "0", "--seconds", "1")
    assert text.returncode == 1 and f"PID {spinner} (python" in text.stdout and "of each 1 s watch" in text.stdout, text.stdout


@pytest.mark.timing
def test_host_check_of_a_free_cpu_exits_0():
    res = xtalk("host", "check", "--cpus", "1", "--seconds", "1")
    assert res.returncode == 0 and res.stdout.startswith(("measurable: CPU 1 free", "doubtful")), res.stdout + res.stderr
