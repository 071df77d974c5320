"""Every output carries the same report sections (xtalk.report.sections): `xtalk run`'s
summary, `xtalk show`, `xtalk report`'s terminal summary, report.html, report.md and
report.json, on a small native campaign run through the CLI and on a synthetic per-board
campaign (its boards section included). report.json is checked against the analysis
result's contract (tests/framework/result_contract.py)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.framework.cli import campaign_dir, write_spec, xtalk
from tests.framework.result_contract import check_result
from tests.framework.synthetic import heavy_tail, write_campaign, write_run

SPEC = """
name = "sections"
cpus = [0, 1]
[run]
duration_s = 2
grace_s = 5
[measurer]
bench = "qsort"
iterations = 40
params = { size_kib = 256 }
[[stressors]]
name = "thrash"
bench = "cache_thrash"
params = { size = "4m" }
[matrix]
placement = ["solo", "same-core"]
[[gates]]
metric = "qsort"
stat = "median"
max_increase_pct = 100000
"""


def same_sections(dest: Path, *terminal: str) -> list[str]:
    """The section keys of report.json; the HTML has a block for each, in that order, and
    the Markdown and every terminal output name each section's title."""
    data = json.loads((dest / "report.json").read_text())
    check_result(data)
    sections = data["sections"]
    keys = [s["key"] for s in sections]
    assert re.findall(r'<div data-section="([^"]+)">', (dest / "report.html").read_text()) == keys
    md = (dest / "report.md").read_text()
    for s in sections:
        assert s["title"] in md, s["title"]
        for out in terminal:
            assert s["title"] in out, (s["title"], out)
    return keys


def test_run_show_and_report_of_a_native_campaign_carry_the_same_sections(tmp_path, native_bench):
    out = tmp_path / "out"
    ran = xtalk("run", write_spec(tmp_path, SPEC), "--out", out, "--report")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    camp = campaign_dir(out)
    shown = xtalk("show", camp.name, "--out", out)
    reported = xtalk("report", camp.name, "--out", out, "--no-samples", "--no-plots")
    assert shown.returncode == 0 and reported.returncode == 0, shown.stderr + reported.stderr
    keys = same_sections(camp / "report", ran.stdout, shown.stdout, reported.stdout)
    assert {"answer", "doubts", "gates", "stats", "verdicts", "evt", "runs"} <= set(keys)
    assert "not computed here" in shown.stdout and "not computed here" not in reported.stdout


@pytest.fixture
def boards(tmp_path) -> Path:
    spec = {"matrix": {"board": ["b0", "b1"], "placement": ["solo"]}}
    ids = [f"{b}_solo-r{i}" for i in range(3) for b in ("b0", "b1")]
    path = write_campaign(tmp_path / "c", "boards", spec, ids)
    for i, rid in enumerate(ids):
        board = rid.split("_")[0]
        write_run(path, rid, {"board": board, "placement": "solo"}, 3000,
                  heavy_tail(1000 if board == "b0" else 1300, 100), seed=i, index=i, freq_hz=2e9)
    return path


def test_the_boards_section_is_in_show_report_and_json(tmp_path, boards):
    shown = xtalk("show", boards)
    reported = xtalk("report", boards, "--dest", tmp_path / "rep", "--no-samples")
    assert shown.returncode == 0 and reported.returncode == 0, shown.stderr + reported.stderr
    assert "boards" in same_sections(tmp_path / "rep", shown.stdout, reported.stdout)
    assert "different" in shown.stdout.split("Boards: each configuration against the same one on b0")[1]
