"""Two `xtalk run` at once on this host (host/leases.py): the second is refused on the
CPUs or the campaign directory the first holds, naming it, before it writes anything;
--wait queues it behind the first; Ctrl-C gives every lease back."""
from __future__ import annotations

import json
import signal

import pytest

from tests.framework.cli import campaign_dir, run_meta, small, start, started_runs, wait_for, xtalk
from xtalk.host import leases
from xtalk.host.leases import Holder, Leases, cpu_leases, directory_lease


@pytest.fixture(autouse=True)
def built(native_bench):
    return native_bench


@pytest.fixture
def locks(tmp_path, monkeypatch):
    """This test's own lock directory, which every xtalk it starts shares."""
    monkeypatch.setenv(leases.ENV, str(tmp_path / "locks"))
    return tmp_path / "locks"


def test_a_second_campaign_or_resume_on_the_same_cpu_is_refused_and_wait_queues(tmp_path, locks):
    long = small(tmp_path, duration=30, reps=1, iterations=0, placements='["same-core"]')
    (tmp_path / "short").mkdir()
    short = small(tmp_path / "short", duration=0.5, reps=1, iterations=0, placements='["same-core"]')
    first = start("run", long, "--out", tmp_path / "a")
    wait_for(lambda: started_runs(tmp_path / "a"), 30, "the first campaign's run")
    queued = start("run", short, "--out", tmp_path / "c", "--wait", "--json")
    refused = xtalk("run", short, "--out", tmp_path / "b")
    resumed = xtalk("run", long, "--out", tmp_path / "a", "--resume")
    for res in (refused, resumed):
        assert res.returncode == 2, res.stderr
        assert f"CPU 0 is in use by campaign 'small' (PID {first.pid}, results in {tmp_path / 'a'})" in res.stderr
        assert "Traceback" not in res.stderr
    assert not (tmp_path / "b").exists() and not (tmp_path / "c").exists() and queued.poll() is None
    first.send_signal(signal.SIGINT)
    assert first.wait(timeout=30) == 130, first.stderr.read()
    assert started_runs(tmp_path / "a") == ["same-core-r1"]  # the refused resume redid nothing
    queued_out, queued_err = queued.communicate(timeout=60)
    assert queued.returncode == 0 and json.loads(queued_out)["passed"] == 1, queued_err
    assert queued_err.count("xtalk: waiting: CPU 0 is in use by campaign 'small'") == 1, queued_err
    assert run_meta(tmp_path / "c", "same-core-r1")["started_at"] >= run_meta(tmp_path / "a", "same-core-r1")["ended_at"]
    assert not list(locks.iterdir())


def test_a_campaign_directory_another_xtalk_holds_is_not_resumed(tmp_path, locks):
    spec = small(tmp_path, duration=0.5, reps=1, iterations=0, placements='["solo"]')
    assert xtalk("run", spec, "--out", tmp_path).returncode == 0
    before = (campaign_dir(tmp_path) / "campaign.json").read_text()
    with Leases(Holder.me("holder", "results in elsewhere")) as held:
        held.take(directory_lease(campaign_dir(tmp_path)))
        res = xtalk("run", spec, "--out", tmp_path, "--resume")
    assert res.returncode == 2, res.stderr
    assert f"campaign directory {campaign_dir(tmp_path)} is in use by campaign 'holder' (PID {held.holder.pid}" \
        in res.stderr
    assert (campaign_dir(tmp_path) / "campaign.json").read_text() == before


def test_ctrl_c_gives_every_lease_back(tmp_path, locks):
    proc = start("run", small(tmp_path, duration=5, reps=1, iterations=0, placements='["same-core"]'),
                 "--out", tmp_path / "out")
    wait_for(lambda: started_runs(tmp_path / "out"), 30, "the run to start")
    assert sorted(p.name for p in locks.iterdir()) == [f"{next(iter(directory_lease(campaign_dir(tmp_path / 'out'))))}"
                                                       ".lock", "cpu0.lock"]
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=30) == 130, proc.stderr.read()
    assert not list(locks.iterdir())
    with Leases(Holder.me("after", "results in out")) as after:
        after.take(cpu_leases("", [0]) | directory_lease(campaign_dir(tmp_path / "out")))


@pytest.mark.parametrize("command", [["channels"], ["search", "--trials", "1"], ["calibrate"]])
def test_a_command_of_derived_campaigns_holds_every_cpu_of_the_spec_or_is_refused(tmp_path, locks, command):
    spec = small(tmp_path, duration=0.5, reps=1, iterations=0, placements='["solo"]')
    with Leases(Holder.me("holder", "results in elsewhere")) as held:
        held.take(cpu_leases("", [1]))
        res = xtalk(*command, spec, "--out", tmp_path / "out")
    assert res.returncode == 2, res.stderr
    assert f"CPU 1 is in use by campaign 'holder' (PID {held.holder.pid}" in res.stderr and "--wait" in res.stderr
    assert not (tmp_path / "out").exists()
