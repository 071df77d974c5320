"""xen backend: the dom0 script behind pause/resume (xen.SET_PAUSED), run by the local shell
against a fake `xl` that counts pauses as Xen does (two pauses need two unpauses). A pause
whose ssh connection dropped may have run already: run again, it must not pause twice.
The lab's dom0 runs it for real (tests/integration/test_xen.py)."""
from __future__ import annotations

import os
import subprocess

import pytest

from xtalk.backends.executors import quote_argv
from xtalk.backends.xen import SET_PAUSED

FAKE_XL = r"""#!/bin/sh
# xl list NAME | xl pause NAME | xl unpause NAME, over a pause count in $XL_STATE/NAME
f="$XL_STATE/$2"
[ -f "$f" ] || { echo "xl: domain $2 does not exist" >&2; exit 1; }
n=$(cat "$f")
case "$1" in
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

    def set_paused(verb: str, name: str = "dom") -> subprocess.CompletedProcess:
        line = quote_argv(["sh", "-c", SET_PAUSED, "set-paused", verb, name])  # what an executor sends
        return subprocess.run(["sh", "-c", line], capture_output=True, text=True, env=env, timeout=30)

    set_paused.count = lambda: int((tmp_path / "dom").read_text())
    set_paused.calls = lambda: (tmp_path / "calls").read_text().split("\n")[:-1] if (tmp_path / "calls").exists() \
        else []
    return set_paused


def test_a_repeated_pause_pauses_once_and_one_resume_undoes_it(xl):
    assert xl("pause").returncode == 0
    assert xl("pause").returncode == 0   # the repeat after a dropped connection
    assert xl.count() == 1
    assert xl("unpause").returncode == 0
    assert xl("unpause").returncode == 0  # repeated: no unpause of a running domain
    assert xl.count() == 0
    assert xl.calls() == ["pause dom", "unpause dom"]


def test_a_domain_that_is_not_there_is_an_error(xl):
    done = xl("pause", "gone")
    assert done.returncode == 1 and "gone" in done.stderr
    assert xl.calls() == []
