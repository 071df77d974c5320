"""The xen backend's guard over its dom0 (backends/xen/target.py): a dom0 that stops
answering is lost, restarted once where xtalk can restart it (the lab), and set aside
after that; a dom0 xtalk cannot restart is set aside at once. Its executor is a real
one (ssh to a port nobody listens on: it does not answer); the host's restart is the
part replaced, a lab boot being the Xen lab tests' to show (test_xen_faults.py)."""
from __future__ import annotations

import socket
import time

import pytest

from xtalk.backends.xen import target
from xtalk.backends.xen.target import TargetGuard, TargetLost
from xtalk.remote.executors import LocalExecutor, SshExecutor


def silent_executor(tmp_path) -> SshExecutor:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return SshExecutor(host="127.0.0.1", port=port, user="root", known_hosts=tmp_path / "kh",
                       control_dir=tmp_path, use_user_config=False, label="lab arm64")


class Host:
    """What the guard uses of XenHost: its executor, whether it can restart, restart()."""

    def __init__(self, executor, executor_kind: str, after_restart):
        self.executor, self.after_restart = executor, after_restart
        self.opts = type("Opts", (), {"executor": executor_kind})()
        self.restarted = 0

    def restartable(self) -> bool:
        return self.opts.executor == "lab"

    def restart(self) -> None:
        self.restarted += 1
        self.executor = self.after_restart


@pytest.fixture(autouse=True)
def quick(monkeypatch):
    monkeypatch.setattr("xtalk.remote.executors.time.sleep", lambda s: None)


def test_a_watcher_silent_past_the_limit_loses_the_target_and_says_since_when(tmp_path):
    guard = TargetGuard(Host(LocalExecutor(), "lab", LocalExecutor()), "lab arm64")
    guard.silent(time.monotonic() - 1, asked=True)  # answered a second ago: fine
    guard.silent(time.monotonic() - 2 * target.SILENT_S, asked=False)  # no ask ended yet: not judged
    with pytest.raises(TargetLost, match=r"dom0 \(lab arm64\) stopped answering: no answer since \d\d:\d\d:\d\d "
                                         r"\(\d+ s\)"):
        guard.silent(time.monotonic() - target.SILENT_S - 5, asked=True)
    assert not guard.reachable()


def test_a_lost_lab_is_restarted_once_then_set_aside_and_every_later_run_fails_at_once(tmp_path):
    host = Host(LocalExecutor(), "lab", LocalExecutor())
    guard = TargetGuard(host, "lab arm64")
    guard.before_run()  # answers: nothing decided
    assert guard.taken() == []
    with pytest.raises(TargetLost):
        guard.silent(time.monotonic() - target.SILENT_S - 1, asked=True)
    guard.before_run()
    (decided,) = guard.taken()
    assert decided["state"] == "restarted" and "stopped answering" in decided["reason"] and host.restarted == 1
    assert guard.reachable()
    host.executor = silent_executor(tmp_path)  # frozen again: the check before the next run finds it
    with pytest.raises(TargetLost, match=r"set aside for the rest of the campaign: .*did not answer the check"):
        guard.before_run()
    assert [d["state"] for d in guard.taken()] == ["set aside"] and host.restarted == 1
    started = time.monotonic()
    with pytest.raises(TargetLost, match="set aside for the rest of the campaign"):
        guard.before_run()
    assert time.monotonic() - started < 1 and guard.taken() == []  # at once, decided once


def test_a_dom0_xtalk_cannot_restart_is_set_aside_at_once(tmp_path):
    host = Host(silent_executor(tmp_path), "ssh", None)
    guard = TargetGuard(host, "board-1")
    with pytest.raises(TargetLost, match=r"set aside .*cannot restart a dom0 reached by executor 'ssh'"):
        guard.before_run()
    assert host.restarted == 0


def test_a_restart_that_fails_sets_the_target_aside(tmp_path):
    class Broken(Host):
        def restart(self):
            from xtalk.errors import InfrastructureError
            raise InfrastructureError("the arm64 lab was not up after 240 s")
    guard = TargetGuard(Broken(silent_executor(tmp_path), "lab", None), "lab arm64")
    with pytest.raises(TargetLost, match=r"restarting it failed: the arm64 lab was not up"):
        guard.before_run()
