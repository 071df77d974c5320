"""xen backend: dom0 commands that must be safe to send twice (a send whose ssh master closed
may have run although it never said it started, and the executor sends it again): pause/resume
(xen.SET_PAUSED: Xen counts pauses, two need two unpauses) and the destroy before a domain's
creation (xen.DESTROY_IF_THERE). Run by the local shell exactly as an executor sends them,
against a fake `xl`; the lab's dom0 runs them for real (tests/integration/test_xen.py)."""
from __future__ import annotations

import os
import subprocess

import pytest

from xtalk.remote.executors import quote_argv
from xtalk.backends.xen.backend import DESTROY_IF_THERE, SET_PAUSED

FAKE_XL = r"""#!/bin/sh
# xl list|domid|pause|unpause|destroy NAME, over a pause count in $XL_STATE/NAME (no file: no domain)
f="$XL_STATE/$2"
[ -f "$f" ] || { echo "xl: domain $2 does not exist" >&2; exit 1; }
n=$(cat "$f")
case "$1" in
  domid) echo 7 ;;
  destroy) rm "$f"; echo "destroy $2" >> "$XL_STATE/calls" ;;
  list) [ "$n" -gt 0 ] && s="--p---" || s="-b----"
        printf 'Name ID Mem VCPUs State Time(s)\n%s 7 64 1 %s 1.5\n' "$2" "$s" ;;
  pause) echo $((n + 1)) > "$f"; echo "pause $2" >> "$XL_STATE/calls" ;;
  unpause) [ "$n" -gt 0 ] || { echo "unpause of a running domain" >&2; exit 1; }
           echo $((n - 1)) > "$f"; echo "unpause $2" >> "$XL_STATE/calls" ;;
esac
"""


@pytest.fixture
def xl(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "xl").write_text(FAKE_XL)
    (bin_dir / "xl").chmod(0o755)
    (tmp_path / "dom").write_text("0\n")
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", XL_STATE=str(tmp_path))

    def send(*argv: str) -> subprocess.CompletedProcess:
        line = quote_argv(["sh", "-c", *argv])  # what an executor sends
        return subprocess.run(["sh", "-c", line], capture_output=True, text=True, env=env, timeout=30)

    send.there = lambda: (tmp_path / "dom").exists()
    send.count = lambda: int((tmp_path / "dom").read_text())
    send.calls = lambda: (tmp_path / "calls").read_text().split("\n")[:-1] if (tmp_path / "calls").exists() else []
    return send


def set_paused(xl, verb: str, name: str = "dom") -> subprocess.CompletedProcess:
    return xl(SET_PAUSED, "set-paused", verb, name)


def test_a_repeated_pause_pauses_once_and_one_resume_undoes_it(xl):
    assert set_paused(xl, "pause").returncode == 0
    assert set_paused(xl, "pause").returncode == 0   # the repeat after a dropped connection
    assert xl.count() == 1
    assert set_paused(xl, "unpause").returncode == 0
    assert set_paused(xl, "unpause").returncode == 0  # repeated: no unpause of a running domain
    assert xl.count() == 0
    assert xl.calls() == ["pause dom", "unpause dom"]


def test_a_domain_that_is_not_there_is_an_error(xl):
    done = set_paused(xl, "pause", "gone")
    assert done.returncode == 1 and "gone" in done.stderr
    assert xl.calls() == []


def test_the_domain_a_first_send_made_is_destroyed_before_it_is_made_again(xl):
    assert xl(DESTROY_IF_THERE, "destroy", "dom").returncode == 0
    assert not xl.there() and xl.calls() == ["destroy dom"]
    assert xl(DESTROY_IF_THERE, "destroy", "dom").returncode == 0  # none there: nothing to do, no error
    assert xl.calls() == ["destroy dom"]
