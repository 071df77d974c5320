"""A lab's state file a user (or a crash) tore (issue 58's unclear words): `xtalk lab status`
names the file and what `xtalk lab stop` does about it; `lab stop` stops the process that
ran in that lab's directory (found by its command line, the state's pid being lost) and
removes the file; no traceback, no "(a bug)"."""
from __future__ import annotations

import subprocess
import sys

import pytest

from tests.framework.cli import xtalk


@pytest.fixture
def torn(tmp_path, monkeypatch):
    monkeypatch.setenv("XTALK_CACHE", str(tmp_path / "cache"))
    run_dir = tmp_path / "cache" / "lab" / "run" / "arm64"
    run_dir.mkdir(parents=True)
    (run_dir / "state.json").write_text('{"arch": "arm64", "pid": 12')
    # a stand-in for the lab's QEMU: its command line names the lab's directory, as QEMU's does
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", str(run_dir / "serial.sock")])
    yield run_dir, proc
    proc.kill()
    proc.wait()


@pytest.mark.parametrize("content", ['{"arch": "arm64", "pid": 12', '[1, 2]', '{"pid": "12"}'])
def test_status_names_a_torn_or_wrong_state_file(torn, content):
    run_dir, _ = torn
    (run_dir / "state.json").write_text(content)
    res = xtalk("lab", "status")
    assert res.returncode == 1 and "Traceback" not in res.stderr and "bug" not in res.stdout + res.stderr, res
    line = next(x for x in res.stdout.splitlines() if x.startswith("arm64:"))
    assert str(run_dir / "state.json") in line and "xtalk lab stop" in line, res.stdout


def test_stop_ends_the_labs_process_and_removes_the_torn_file(torn):
    run_dir, proc = torn
    res = xtalk("lab", "stop", "--arch", "arm64")
    assert res.returncode == 0 and "Traceback" not in res.stderr, res
    assert f"pid {proc.pid}" in res.stdout + res.stderr and "damaged" in res.stdout + res.stderr
    assert proc.wait(timeout=10) is not None and not (run_dir / "state.json").exists()
