"""`xtalk run --fleet` on a labgrid lab on loopback (tests/framework/fleet_lab.py): two boards that
are this machine over ssh, a coordinator and an exporter on 127.0.0.1. What is held is
checked through labgrid's own client (`labgrid-client who`, `reservations`). Boards that
stop answering or turn suspect: test_fleet_faults.py."""
from __future__ import annotations

import json
import shutil
import signal
import time
from pathlib import Path

import pytest

from tests.framework.cli import campaign_dir, small, start, wait_for, xtalk
from tests.framework.fleet_fixtures import lab  # noqa: F401 - the module's fixture
from tests.framework.fleet_checks import metas, nothing_held, power_on_all, workers

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not (shutil.which("sshd") or Path("/usr/sbin/sshd").exists()),
                                 reason="needs openssh-server (scripts/setup.sh installs it)")]


@pytest.fixture(autouse=True)
def boards_on(lab):
    power_on_all(lab)


def test_spread_runs_on_both_boards_into_one_campaign_and_gives_them_back(lab, tmp_path):
    out = tmp_path / "out"
    res = xtalk("run", small(tmp_path, reps=2), "--fleet", lab.fleet(), "--out", out, "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["passed"] == 4
    runs = metas(out)
    assert sorted(runs) == ["same-core-r1", "same-core-r2", "solo-r1", "solo-r2"]
    assert {m["fleet"]["place"] for m in runs.values()} == {"board-a", "board-b"}
    assert all(m["fleet"]["board"]["hostname"] and m["fleet"]["mode"] == "spread" for m in runs.values())
    assert nothing_held(lab)
    shown = xtalk("show", "small", "--out", out)
    assert shown.returncode == 0 and "board-a" in shown.stdout and "board-b" in shown.stdout


def test_per_board_runs_everything_on_each_board_and_compares_them(lab, tmp_path):
    out = tmp_path / "out"
    res = xtalk("run", small(tmp_path, placements='["solo"]', reps=2), "--fleet", lab.fleet("per-board"),
                "--out", out)
    assert res.returncode == 0, res.stderr
    runs = metas(out)
    assert sorted(runs) == ["solo_board-a-r1", "solo_board-a-r2", "solo_board-b-r1", "solo_board-b-r2"]
    assert all(m["fleet"]["place"] == m["config"]["board"] for m in runs.values())
    name = campaign_dir(out).name
    cmp = xtalk("compare", f"{name}@board-a", f"{name}@board-b", "--out", out, "--json")
    assert cmp.returncode == 0, cmp.stderr
    rows = json.loads(cmp.stdout)["rows"]
    assert [r["metric"] for r in rows] == ["qsort"] and rows[0]["verdict"] in ("different", "no-difference",
                                                                              "inconclusive")
    report = xtalk("report", name, "--out", out, "--json")
    assert report.returncode == 0, report.stderr
    res = json.loads(report.stdout)
    assert {v["config_id"]: v["verdict"] for v in res["verdicts"]} == {"solo_board-a": "baseline",
                                                                       "solo_board-b": "baseline"}  # each its own
    boards = {v["config_id"]: (v["board"], v["baseline"], v["verdict"]) for v in res["boards"]}
    assert boards["solo_board-a"] == ("board-a", "solo_board-a", "baseline"), boards
    assert boards["solo_board-b"][:2] == ("board-b", "solo_board-a") and boards["solo_board-b"][2] in (
        "different", "no-difference", "inconclusive"), boards
    assert "Boards: each configuration against the same one on board-a" in (
        campaign_dir(out) / "report" / "report.md").read_text()
    assert nothing_held(lab)


def test_a_run_over_the_size_limit_is_refused_while_it_streams(lab, tmp_path):
    out = tmp_path / "out"
    fleet = lab.fleet(sends={"board-a": "huge", "board-b": "huge"}, top="max_run_mib = 1\n")
    res = xtalk("run", small(tmp_path, placements='["solo"]', reps=2), "--fleet", fleet, "--out", out, "--json")
    assert res.returncode == 3, res.stderr
    runs = metas(out)
    assert sorted(runs) == ["solo-r1", "solo-r2"] and {m["fleet"]["place"] for m in runs.values()} == {
        "board-a", "board-b"}
    for meta in runs.values():  # refused from the member's header: nothing of the 1 GiB was read further
        assert meta["status"] == "error" and meta["reason"] == (
            f"board {meta['fleet']['place']} sent a run over the size limit (max_run_mib = 1, 1,048,576 bytes): "
            "its member samples.bin (1,073,741,824 bytes) takes it to 1,073,741,824 bytes (the board is suspect: "
            "no more runs go to it)"), meta
    assert sorted(json.loads(res.stdout)["boards_out"]) == ["board-a", "board-b"]
    assert nothing_held(lab)
    assert wait_for(lambda: not workers(lab), 10, "no crafted worker left")


def test_ctrl_c_stops_every_board_and_resume_finishes(lab, tmp_path):
    out = tmp_path / "out"
    spec = small(tmp_path, duration=3, reps=2, iterations=0)
    proc = start("run", spec, "--fleet", lab.fleet(), "--out", out)
    wait_for(lambda: any("xtalk.cli.main worker" in c for c in workers(lab)), 60, "the lab's workers seen as its own")
    assert any("xtalk.fleet.guard" in c for c in workers(lab))  # and its lease guard
    wait_for(lambda: campaign_dir(out) and len(metas(out)) >= 2, 60, "two runs done")
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert nothing_held(lab)
    assert wait_for(lambda: not workers(lab), 10, "no worker or guard left")
    res = xtalk("run", spec, "--fleet", lab.fleet(), "--out", out, "--resume", "--json")
    assert res.returncode == 0, res.stderr
    summary = json.loads(res.stdout)
    assert summary["passed"] == 4 and len(summary["skipped_resumed"]) >= 2
    assert nothing_held(lab)


def test_a_sigkilled_xtalk_leaves_no_board_held(lab, tmp_path):
    out = tmp_path / "out"
    proc = start("run", small(tmp_path, duration=3, iterations=0), "--fleet", lab.fleet(), "--out", out)
    wait_for(lambda: "board-a" in lab.client("who") and "board-b" in lab.client("who"), 60, "both places acquired")
    proc.kill()
    proc.wait()
    wait_for(lambda: nothing_held(lab), 30, "the lease guard to release both places")
    wait_for(lambda: not workers(lab), 30, "no worker or guard left")


def serial_log(out: Path, run_id: str) -> str:
    return (campaign_dir(out) / "runs" / run_id / "serial.log").read_bytes().decode()


def test_power_cycle_between_runs_goes_through_labgrid_and_each_run_keeps_its_boards_console(lab, tmp_path):
    out = tmp_path / "out"
    lab.switch.log.clear()
    spec = small(tmp_path, placements='["solo"]', reps=2)
    spec.write_text(spec.read_text().replace("grace_s = 5", "grace_s = 5\npower_cycle = true"))
    res = xtalk("run", spec, "--fleet", lab.fleet(), "--out", out)
    assert res.returncode == 0, res.stderr
    per_board = {b.name: [v for n, v in lab.switch.log if n == b.name] for b in lab.boards}
    assert sum(len(v) for v in per_board.values()) == 4, lab.switch.log  # one cycle (off, on) per run
    assert all(v == ["0", "1"] * (len(v) // 2) for v in per_board.values()), lab.switch.log
    for run_id, meta in metas(out).items():
        board, other = meta["fleet"]["place"], ({"board-a", "board-b"} - {meta["fleet"]["place"]}).pop()
        console = meta["serial_console"]
        assert console["log"] == "serial.log" and console["protocol"] == "raw" and console["problems"] == []
        text = serial_log(out, run_id)
        assert console["bytes"] == len(text.encode())
        booted = text.split(f"{board} power on: booting\r\n")  # caught from the power cycle on
        assert len(booted) == 2 and f"{board} tick" in booted[1] and other not in text, text
    assert nothing_held(lab)


def test_a_console_that_hangs_up_is_noted_and_the_run_passes(lab, tmp_path):
    out = tmp_path / "out"
    proc = start("run", small(tmp_path, placements='["solo"]', duration=3, iterations=0), "--fleet",
                 lab.fleet(), "--out", out)
    wait_for(lambda: any(b.console.clients for b in lab.boards), 60, "a console client")
    time.sleep(1.0)
    hung = [b for b in lab.boards if b.console.clients]
    for board in hung:
        board.console.hang_up()
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    meta = metas(out)["solo-r1"]
    assert meta["status"] == "pass" and meta["fleet"]["place"] in [b.name for b in hung]
    problems = meta["serial_console"]["problems"]
    assert len(problems) == 1 and "socket disconnected" in problems[0], problems
    ticks = [int(line.split()[-1]) for line in serial_log(out, "solo-r1").splitlines() if " tick " in line]
    gaps = [b for a, b in zip(ticks, ticks[1:]) if b - a > 1]
    assert len(gaps) == 1 and ticks[-1] - gaps[0] >= 3, ticks  # what it printed unread, then read again


def test_a_bad_fleet_file_is_told_before_anything_runs(tmp_path):
    fleet = tmp_path / "fleet.toml"
    fleet.write_text('coordinator = "127.0.0.1:1"\n[[kinds]]\nname = "x"\nreach = "ssh"\nplaces = ["a"]\n')
    res = xtalk("run", small(tmp_path), "--fleet", fleet, "--out", tmp_path / "out")
    assert res.returncode == 2 and "kinds[0].reach (line 4)" in res.stderr and "Traceback" not in res.stderr
    unreachable = fleet.read_text().replace('"ssh"', '"worker"')
    fleet.write_text(unreachable)
    res = xtalk("run", small(tmp_path), "--fleet", fleet, "--out", tmp_path / "out")
    assert res.returncode == 3 and "labgrid coordinator 127.0.0.1:1: cannot connect" in res.stderr, res.stderr
    assert not (tmp_path / "out").exists()


def test_a_xen_dom0_kinds_options_are_checked_as_the_fleet_files(tmp_path):
    spec = tmp_path / "xen.toml"
    spec.write_text(small(tmp_path).read_text().replace("[run]", '[backend]\nkind = "xen"\n[run]'))
    fleet = tmp_path / "fleet.toml"
    kind = 'coordinator = "127.0.0.1:1"\n[[kinds]]\nname = "x"\nreach = "xen-dom0"\nplaces = ["a"]\n'
    for xen, told in (("memroy_mib = 64", "kinds[0].xen.memroy_mib: unknown option"),
                      ("xl_extra = { vcpus = 2 }", "kinds[0].xen.xl_extra: vcpus is set by xtalk")):
        fleet.write_text(kind + f"xen = {{ {xen} }}\n")
        res = xtalk("run", spec, "--fleet", fleet, "--out", tmp_path / "out")
        assert res.returncode == 2 and told in res.stderr and "Traceback" not in res.stderr, res.stderr
    fleet.write_text(kind + 'xen = { memory_mib = 64, xl_extra = { tsc_mode = "native" } }\n')
    res = xtalk("run", small(tmp_path), "--fleet", fleet, "--out", tmp_path / "out")
    assert res.returncode == 2 and "kinds[0].reach: xen-dom0 boards run the xen backend, not 'native' (the " \
        "spec's backend.kind)" in res.stderr, res.stderr
    res = xtalk("run", spec, "--fleet", fleet, "--out", tmp_path / "out")
    assert res.returncode == 3 and "labgrid coordinator 127.0.0.1:1: cannot connect" in res.stderr, res.stderr
