"""Boards that fail a fleet campaign, on the loopback labgrid lab (tests/framework/fleet_lab.py):
one that stops answering (its power cut under its run, or off before the campaign) is
power-cycled through labgrid and goes on; one that stops a second time, or that cannot be
restarted, is set aside; one that sends back a run xtalk does not take is set aside
without a restart. Each decision is checked where a user finds it: campaign.json,
`xtalk show`, the report (report.md, report.html)."""
from __future__ import annotations

import html
import json
import re
import shutil
import time
from pathlib import Path

import pytest

from tests.framework.cli import campaign_dir, small, start, wait_for, xtalk
from tests.framework.fleet_fixtures import lab  # noqa: F401 - the module's fixture
from tests.framework.fleet_checks import metas, nothing_held, power_on_all, worker_running, workers

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not (shutil.which("sshd") or Path("/usr/sbin/sshd").exists()),
                                 reason="needs openssh-server (scripts/setup.sh installs it)")]

SILENT_SINCE = r"silent since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \((its worker's last progress tick|the start of its run)"


@pytest.fixture(autouse=True)
def boards_on(lab):
    power_on_all(lab)
    lab.switch.log.clear()


def decisions(out: Path) -> dict[str, list[dict]]:
    return json.loads((campaign_dir(out) / "campaign.json").read_text())["fleet"].get("boards", {})


def told_everywhere(out: Path, line: str) -> None:
    """`line` (a decision as the report words it) in `xtalk show` and the report's Markdown and HTML."""
    shown = xtalk("show", campaign_dir(out).name, "--out", out)
    assert shown.returncode == 0 and line in shown.stdout, shown.stdout
    report = campaign_dir(out) / "report"
    assert line in (report / "report.md").read_text()
    assert html.escape(line) in (report / "report.html").read_text()


def cut_under_a_run(board) -> None:
    """The board's power cut a second into its worker's run."""
    wait_for(lambda: worker_running(board), 60, f"a run on {board.name}")
    time.sleep(1.0)
    board.power_off()


def test_a_board_that_stops_answering_is_restarted_and_finishes_its_runs(lab, tmp_path):
    out = tmp_path / "out"
    proc = start("run", small(tmp_path, duration=3, reps=3, iterations=0), "--fleet", lab.fleet(), "--out", out,
                 "--report")
    cut_under_a_run(lab.boards[1])
    _, err = proc.communicate(timeout=180)
    assert proc.returncode == 3, err  # the run it was on
    runs = metas(out)
    lost = [m for m in runs.values() if m["status"] == "error"]
    assert len(lost) == 1 and lost[0]["fleet"]["place"] == "board-b", runs
    assert re.fullmatch(rf"board board-b stopped answering \(.*\); {SILENT_SINCE}.*\)", lost[0]["reason"]), lost
    after = [m for m in runs.values() if m["fleet"]["place"] == "board-b" and m["started_at"] > lost[0]["ended_at"]]
    assert after and all(m["status"] == "pass" for m in after), runs  # it took runs again, and they passed
    assert len(runs) == 6 and all(m["status"] == "pass" for m in runs.values() if m not in lost)
    assert lab.switch.log == [("board-b", "0"), ("board-b", "1")]  # one power cycle, through labgrid
    board_b = decisions(out)["board-b"]
    assert [(d["state"], d["reason"]) for d in board_b] == [("restarted", lost[0]["reason"])], board_b
    assert board_b[0]["since"] < board_b[0]["at"] and list(decisions(out)) == ["board-b"]
    told_everywhere(out, f"board-b: restarted at {board_b[0]['at'][:10]}")
    assert "RESTARTED" in err and nothing_held(lab)
    assert wait_for(lambda: not workers(lab), 10, "no worker or guard left")


@pytest.mark.full  # the gate has the restart (above); this one's second cut and resume: test-all
def test_a_board_that_stops_twice_is_set_aside_its_runs_go_on_and_resume_gives_it_runs_again(lab, tmp_path):
    out = tmp_path / "out"
    spec = small(tmp_path, duration=3, reps=3, iterations=0)
    proc = start("run", spec, "--fleet", lab.fleet(), "--out", out, "--json", "--report")
    for _ in range(2):
        cut_under_a_run(lab.boards[1])
    res, err = proc.communicate(timeout=180)
    assert proc.returncode == 3, err
    runs = metas(out)
    lost = sorted((m for m in runs.values() if m["status"] == "error"), key=lambda m: m["started_at"])
    assert [m["fleet"]["place"] for m in lost] == ["board-b", "board-b"], runs
    assert len(runs) == 6 and all(m["status"] == "pass" and m["fleet"]["place"] == "board-a"
                                  for m in runs.values() if m not in lost)  # the rest on the other board
    assert lab.switch.log == [("board-b", "0"), ("board-b", "1")]  # restarted once, not twice
    board_b = decisions(out)["board-b"]
    aside = f"{lost[1]['reason']}; it was restarted once already: no more runs go to it in this session"
    assert [(d["state"], d["reason"]) for d in board_b] == [("restarted", lost[0]["reason"]), ("down", aside)]
    assert json.loads(res)["boards_out"] == {"board-b": aside} and f"xtalk: error: {aside}" in err
    told_everywhere(out, f"board-b: set aside (down) at {board_b[1]['at'][:10]}")
    assert nothing_held(lab)

    again = xtalk("run", spec, "--fleet", lab.fleet(), "--out", out, "--resume", "--json")
    assert again.returncode == 0, again.stderr
    redone = [metas(out)[m["run_id"]] for m in lost]
    assert all(m["status"] == "pass" for m in redone) and "board-b" in {m["fleet"]["place"] for m in redone}
    now = decisions(out)["board-b"]  # the earlier session's decisions kept; still off, it is restarted first
    assert now[:2] == board_b and [d["state"] for d in now[2:]] == ["restarted"], now
    assert "did not answer the health check" in now[2]["reason"], now
    assert wait_for(lambda: not workers(lab), 10, "no worker or guard left")


def test_a_board_that_sends_a_bad_tar_fails_its_run_is_set_aside_as_suspect_without_a_restart(lab, tmp_path):
    out = tmp_path / "out"
    spec = small(tmp_path, placements='["solo"]', duration=1, reps=3, iterations=0)
    res = xtalk("run", spec, "--fleet", lab.fleet(sends={"board-b": "outside"}), "--out", out, "--json", "--report")
    assert res.returncode == 3, res.stderr
    told = "board board-b sent a run with a member outside its directory: ../x (the board is suspect: no more " \
           "runs go to it)"
    runs = metas(out)
    bad = [m for m in runs.values() if m["fleet"]["place"] == "board-b"]
    assert len(bad) == 1 and bad[0]["status"] == "error" and bad[0]["reason"] == told, runs
    assert sorted(runs) == ["solo-r1", "solo-r2", "solo-r3"]
    assert all(m["status"] == "pass" and m["fleet"]["place"] == "board-a" for m in runs.values() if m not in bad)
    assert json.loads(res.stdout)["boards_out"] == {"board-b": told} and f"xtalk: error: {told}" in res.stderr
    stored = campaign_dir(out)
    assert not (stored / "incoming").exists() and not list(stored.rglob("x"))  # what it sent is gone, none outside
    assert lab.switch.log == []  # what a suspect board sends cannot be trusted: no restart
    board_b = decisions(out)["board-b"]
    assert [(d["state"], d["reason"]) for d in board_b] == [("suspect", told)] and "since" not in board_b[0]
    told_everywhere(out, f"board-b: set aside (suspect) at {board_b[0]['at'][:10]}")
    assert nothing_held(lab)
    assert wait_for(lambda: not workers(lab), 10, "no worker or guard left")


@pytest.mark.full
def test_a_board_without_power_control_that_does_not_answer_is_set_aside_before_its_first_run(tmp_path,
                                                                                              native_bench):
    from tests.framework.fleet_lab import FleetLab
    (tmp_path / "lab").mkdir()
    lab = FleetLab(tmp_path / "lab", unpowered=("board-b",))
    try:
        lab.boards[1].power_off()
        out = tmp_path / "out"
        res = xtalk("run", small(tmp_path, placements='["solo"]', duration=1, reps=2, iterations=0), "--fleet",
                    lab.fleet(), "--out", out, "--json", "--report")
        assert res.returncode == 0, res.stderr  # no run was lost: the health check found it before one
        runs = metas(out)
        assert sorted(runs) == ["solo-r1", "solo-r2"] and all(
            m["status"] == "pass" and m["fleet"]["place"] == "board-a" for m in runs.values()), runs
        board_b = decisions(out)["board-b"]
        assert [d["state"] for d in board_b] == ["down"] and re.fullmatch(
            r"board board-b did not answer the health check \(ssh true: .+\); not heard from since xtalk took its "
            r"place; "
            r"its place has no power resource to restart it: no more runs go to it in this session",
            board_b[0]["reason"]), board_b
        assert json.loads(res.stdout)["boards_out"] == {"board-b": board_b[0]["reason"]}
        told_everywhere(out, f"board-b: set aside (down) at {board_b[0]['at'][:10]}")
        assert nothing_held(lab)
    finally:
        lab.close()
