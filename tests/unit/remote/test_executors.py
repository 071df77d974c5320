"""Executors: argument vectors reach dom0 exactly, never as shell syntax."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from xtalk.remote.executors import (REPORTING_SHELL, LocalExecutor, SshExecutor, TransportError, parse_reported,
                                      quote_argv)
from xtalk.errors import InfrastructureError

NASTY = ["plain", "with space", "quote'single", 'quote"double', "$(touch /tmp/xtalk-pwned)", "`id`", "a;b|c&d",
         "glob*?[x]", "~root", "-n", "", "back\\slash", "dollar$HOME", "ünïcode"]


def test_quoted_argv_round_trips_through_a_posix_shell():
    out = subprocess.run(["sh", "-c", f"printf '%s\\n' {quote_argv(NASTY)}"], capture_output=True, text=True)
    assert out.stdout.split("\n")[:-1] == NASTY


def test_control_characters_are_refused():
    for bad in ("a\nb", "a\rb", "x\x00", "\x1b[2J"):
        with pytest.raises(InfrastructureError):
            quote_argv(["echo", bad])


def test_local_executor_runs_argv_without_a_shell(tmp_path):
    ex = LocalExecutor()
    r = ex.run(["printf", "%s|", *NASTY])
    assert r.ok and r.stdout == "".join(f"{a}|" for a in NASTY)
    assert ex.run(["no-such-program-xtalk"]).returncode == 127


def test_run_many_stops_at_the_first_failure_and_keeps_outputs(tmp_path):
    target = tmp_path / "f"
    results = LocalExecutor().run_many([["sh", "-c", 'cat > "$1"', "put", str(target)], ["cat", str(target)],
                                        ["false"], ["touch", str(tmp_path / "never")]], input=b"it's $(x)")
    assert [r.returncode for r in results] == [0, 0, 1]
    assert results[1].stdout == "it's $(x)"
    assert not (tmp_path / "never").exists()


class CutAfter(LocalExecutor):
    """Runs the script, then loses the connection as ssh does when its master goes away:
    TransportError with the first `ends` command ends of what the script printed."""

    def __init__(self, ends: int):
        self.ends = ends

    def run(self, argv, input=None, timeout=60.0):
        out = super().run(argv, input, timeout).stdout
        kept = out.split("\n@@XTE ")
        cut = "\n@@XTE ".join(kept[:self.ends] + [kept[self.ends].split("\n", 1)[0] + "\n"]) \
            if self.ends < len(kept) else out
        raise TransportError("lab", "sh", "ssh status 255", cut)


def test_a_connection_lost_after_the_last_command_ended_loses_no_result(tmp_path):
    """The master dropped after `xl unpause` (the last of 9) had reported its end: the batch
    is whole, not cut (it failed a Xen run as "command 10 of 9" and its retry made a second domain)."""
    commands = [["true"], ["echo", "two"], ["touch", str(tmp_path / "three")]]
    results = CutAfter(3).run_many(commands)
    assert [r.returncode for r in results] == [0, 0, 0] and results[1].stdout == "two\n"
    failing = CutAfter(2).run_many([["true"], ["false"], ["touch", str(tmp_path / "never")]])
    assert [r.returncode for r in failing] == [0, 1] and not (tmp_path / "never").exists()
    with pytest.raises(TransportError, match=r"echo two \(command 2 of 3\)"):
        CutAfter(1).run_many(commands)  # cut before the second ended: its outcome is unknown


def test_put_writes_bytes_exactly(tmp_path):
    data = bytes(range(256)) * 4
    LocalExecutor().put(str(tmp_path / "img"), data, mode=0o600)
    assert (tmp_path / "img").read_bytes() == data
    assert (tmp_path / "img").stat().st_mode & 0o777 == 0o600


def test_ssh_argv_verifies_host_keys_and_quotes(tmp_path):
    ex = SshExecutor(host="board", port=2222, user="root", known_hosts=tmp_path / "kh", host_key_alias="lab",
                     control_dir=tmp_path, use_user_config=False)
    argv = ex.ssh_argv()
    assert "StrictHostKeyChecking=yes" in argv and "BatchMode=yes" in argv
    assert f"UserKnownHostsFile={tmp_path / 'kh'}" in argv and "HostKeyAlias=lab" in argv
    assert argv[-2:] == ["root@board", "--"] and argv[argv.index("-p") + 1] == "2222"
    assert "StrictHostKeyChecking=no" not in " ".join(argv)


def test_the_reporting_shell_marks_start_and_exit_status():
    out = subprocess.run(["sh", "-c", REPORTING_SHELL, "xtalk", "sh", "-c", "echo o; printf e >&2; exit 7"],
                         capture_output=True, text=True)
    assert out.returncode == 7 and out.stdout == "o\n"
    assert parse_reported(out.stderr) == (True, 7, "e")
    assert parse_reported("Warning: added key\n" + out.stderr) == (True, 7, "Warning: added key\ne")
    assert parse_reported("@@XTGO\npartial") == (True, None, "partial")  # started, never reported
    assert parse_reported("ssh: connect to host x: Connection refused\n")[:2] == (False, None)


def test_ssh_that_cannot_connect_is_retried_then_names_the_host(tmp_path):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ex = SshExecutor(host="127.0.0.1", port=port, user="root", known_hosts=tmp_path / "kh",
                     control_dir=tmp_path, use_user_config=False, label="board")
    with pytest.raises(InfrastructureError, match=r"ssh to board failed before running true \(3 attempts\)"):
        ex.run(["true"])
    assert len(ex.retries) == 3 and all("Connection refused" in r for r in ex.retries)


# -- exactly once: a resend after a lost mark (issue 44) ---------------------------------
LOSSY = Path(__file__).parents[2] / "framework" / "lossy_ssh.py"


class Lossy(SshExecutor):
    """An SshExecutor whose `ssh` runs here and suffers `fault` on its first send
    (tests/framework/lossy_ssh.py)."""

    def __init__(self, tmp_path: Path, fault: str):
        super().__init__(host="dom0", control_dir=tmp_path / "ctl", label="dom0")
        self.state = tmp_path / f"ssh-{fault}"
        self.state.mkdir(exist_ok=True)
        (self.state / "sends").unlink(missing_ok=True)
        self.fault = fault

    def ssh_argv(self, shared: bool = True) -> list[str]:
        return [sys.executable, str(LOSSY), str(self.state), self.fault, "dom0", "--"]

    @property
    def sends(self) -> int:
        return int((self.state / "sends").read_text())


@pytest.fixture
def dom0_tmp(tmp_path, monkeypatch) -> Path:
    """dom0's temporary directory, where its shell keeps claims."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("xtalk.remote.executors.time.sleep", lambda s: None)
    return tmp_path


COUNTED = 'echo ran >> "$1"; cat; echo out; echo err >&2; exit 3'  # argv: COUNTER (stdin echoed)


@pytest.mark.parametrize("fault", ["lost", "cut", "refused", "closed"])
def test_a_command_sent_again_after_its_mark_was_lost_runs_once_and_gives_its_outcome(dom0_tmp, fault):
    """The premise that a command whose start mark never came cannot have run is false
    when the master connection closes: it had run. Sent again, it is not run twice: the
    resend returns the outcome its first send kept."""
    counter = dom0_tmp / "counter"
    ex = Lossy(dom0_tmp, fault)
    r = ex.run(["sh", "-c", COUNTED, "counted", str(counter)], input=b"in\n")
    assert (r.returncode, r.stdout, r.stderr) == (3, "in\nout\n", "err\n")
    assert counter.read_text() == "ran\n" and ex.sends == 2
    assert len(ex.resends) == (0 if fault == "refused" else 1)


def test_a_resend_while_the_first_send_still_runs_waits_for_its_outcome(dom0_tmp):
    """The master dropped while the command ran: the command goes on (deaf to the hang-up),
    and the resend waits for it and returns its outcome."""
    counter = dom0_tmp / "counter"
    ex = Lossy(dom0_tmp, "running")
    r = ex.run(["sh", "-c", 'sleep 1; echo ran >> "$1"; echo done', "slow", str(counter)])
    assert (r.returncode, r.stdout) == (0, "done\n") and counter.read_text() == "ran\n"
    assert len(ex.resends) == 1


def test_a_first_send_killed_with_its_connection_is_an_unknown_outcome_not_a_second_run(dom0_tmp):
    counter = dom0_tmp / "counter"
    ex = Lossy(dom0_tmp, "killed")
    with pytest.raises(TransportError, match=r"outcome unknown, not run twice"):
        ex.run(["sh", "-c", 'sleep 1; echo ran >> "$1"', "slow", str(counter)])
    assert not counter.exists()  # killed before it counted, and not run again


def test_a_batch_sent_again_runs_each_command_once(dom0_tmp):
    """Domain creation is a batch (run_many: config, destroy, create, pin, pool, list)."""
    log = dom0_tmp / "log"
    ex = Lossy(dom0_tmp, "lost")
    step = ["sh", "-c", 'echo "$2" >> "$1"; echo "did $2"', "step", str(log)]
    results = ex.run_many([["sh", "-c", 'cat > "$1"', "put", str(dom0_tmp / "cfg")], step + ["create"],
                           step + ["pin"], step + ["unpause"]], input=b"name='d'")
    assert [r.returncode for r in results] == [0, 0, 0, 0] and results[2].stdout == "did pin\n"
    assert log.read_text() == "create\npin\nunpause\n" and (dom0_tmp / "cfg").read_text() == "name='d'"


def test_a_dom0_stressor_launch_sent_again_starts_one_stressor(dom0_tmp):
    """dom0.py's LAUNCH (setsid, a process group of its own): sent twice, it started two."""
    from xtalk.backends.xen.dom0 import LAUNCH
    marker = f"xtalk-lossy-{os.getpid()}"
    ex = Lossy(dom0_tmp, "lost")
    r = ex.run(["sh", "-c", LAUNCH, "launch", str(dom0_tmp / "dom0"), "s1", "0", "sh", "-c", "sleep 30", marker])
    pgid = int(r.check().stdout.split()[-1])
    try:
        groups = {os.getpgid(int(p)) for p in subprocess.run(["pgrep", "-f", marker], capture_output=True,
                                                               text=True).stdout.split()}
        assert groups == {pgid}
    finally:
        os.killpg(pgid, signal.SIGKILL)


def test_a_cpupool_created_through_a_lost_mark_is_made_once(dom0_tmp, monkeypatch):
    """`xl cpupool-create` sent twice failed "already exists": an xl that says so."""
    bin_dir = dom0_tmp / "bin"
    bin_dir.mkdir()
    (bin_dir / "xl").write_text('#!/bin/sh\n[ "$1" = cpupool-create ] || exit 2\n'
                                'f="$XL_STATE/$2"; if [ -e "$f" ]; then echo "already exists" >&2; exit 1; fi\n'
                                'echo made >> "$f"\n')
    (bin_dir / "xl").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    monkeypatch.setenv("XL_STATE", str(dom0_tmp))
    r = Lossy(dom0_tmp, "lost").run(["xl", "cpupool-create", 'name="xtalk-p"', 'sched="credit2"'])
    assert r.ok, r.stderr
    assert (dom0_tmp / 'name="xtalk-p"').read_text() == "made\n"


def test_a_repeatable_command_keeps_nothing_and_kept_outcomes_go_in_batches(dom0_tmp):
    from xtalk.remote.executors import FORGET_AFTER
    ex = Lossy(dom0_tmp, "none")
    claims = dom0_tmp / f"xtalk-claims-{os.environ.get('USER') or os.getuid()}"
    ex.run(["true"], repeatable=True)
    assert not claims.exists() or not any(claims.iterdir())
    for i in range(FORGET_AFTER):
        assert ex.run(["echo", str(i)]).stdout == f"{i}\n"
    first = set(claims.iterdir())
    assert len(first) == 5 * FORGET_AFTER  # claim, its shell's PID, stdout, stderr, status each
    ex.run(["echo", "more"])  # forgets the batch
    assert not first & set(claims.iterdir()) and len(list(claims.iterdir())) == 5


def test_a_dom0_without_a_writable_temporary_directory_is_named(dom0_tmp, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(dom0_tmp / "no" / "such"))
    (dom0_tmp / "no").write_text("a file, not a directory")
    with pytest.raises(InfrastructureError, match=r"cannot claim true in dom0: its directory .*no/such"):
        Lossy(dom0_tmp, "none").run(["true"])
