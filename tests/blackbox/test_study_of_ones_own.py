"""A study outside xtalk (tests/framework/tail_study.py, one file: an analysis stage and a
report section) found the way a user's installed one is, by entry points: `xtalk report`
computes its key into report.json, which holds to the result's contract with it, and
shows its section in every output; no file of xtalk names it, and without it installed
the report is as before."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.framework.repo import ROOT
from tests.framework.synthetic import heavy_tail, write_campaign, write_run
from tests.framework.tail_study import tail_distribution

CONTRACT = ("import json, sys; from tests.framework.result_contract import check_result; "
            "check_result(json.load(open(sys.argv[1])))")


def run(args: list[str], pythonpath: list[str]) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([*pythonpath, os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=300, env=env)


@pytest.fixture
def campaign(tmp_path) -> Path:
    ids = [f"{p}-r{i}" for i in range(1, 4) for p in ("solo", "same-core")]
    path = write_campaign(tmp_path / "c", "tails", {"matrix": {"placement": ["solo", "same-core"]}}, ids)
    for i, rid in enumerate(ids):
        placement = rid.rsplit("-", 1)[0]
        write_run(path, rid, {"placement": placement}, 2000, heavy_tail(1000 if placement == "solo" else 1500, 100),
                  seed=i, index=i)
    return path


def test_a_study_of_ones_own_is_computed_and_reported_from_one_file(tmp_path, campaign):
    plain, installed = [str(ROOT)], [str(tail_distribution(tmp_path / "site")), str(ROOT)]
    for where, path in (("without", plain), ("with", installed)):
        dest = tmp_path / where
        res = run(["-m", "xtalk.cli.main", "report", str(campaign), "--dest", str(dest), "--no-samples", "--no-plots"], path)
        assert res.returncode == 0, res.stderr
        checked = run(["-c", CONTRACT, str(dest / "report.json")], path)  # with the study's stage in the contract
        assert checked.returncode == 0, checked.stderr
    without = json.loads((tmp_path / "without" / "report.json").read_text())
    data = json.loads((tmp_path / "with" / "report.json").read_text())
    assert "tail" not in without and "tail" not in [s["key"] for s in without["sections"]]
    assert {k: v for k, v in data.items() if k not in ("tail", "sections")} == \
        {k: v for k, v in without.items() if k != "sections"}
    stats = {(r["config_id"], r["metric"]): r for r in data["stats"]}
    assert {(r["config_id"], r["metric"]) for r in data["tail"]} == set(stats) and len(stats) == 2
    for r in data["tail"]:
        s = stats[r["config_id"], r["metric"]]
        assert r["max_over_median"] == pytest.approx(s["max"] / s["median"]) and r["max_over_median"] > 1
    # its section comes last in order (225, after the host's 220), under the results in detail
    assert [s["key"] for s in data["sections"]] == [s["key"] for s in without["sections"]] + ["tail"]
    assert "Tail: the maximum over the median" in (tmp_path / "with" / "report.md").read_text()
    assert 'data-section="tail"' in (tmp_path / "with" / "report.html").read_text()
