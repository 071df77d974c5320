"""Executors: argument vectors reach dom0 exactly, never as shell syntax."""
from __future__ import annotations

import socket
import subprocess

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
