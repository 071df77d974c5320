"""The qemu backend's start() against real QEMU: QMP over the socket pair (qmp.py) answers,
pauses and continues the guest and reports QEMU's errors; a QEMU that dies before its
greeting is a clear error with its stderr, and leaves no process behind."""
from __future__ import annotations

import shutil

import pytest

from xtalk.backends.qemu import QemuBackend
from xtalk.backends.qmp import QmpError
from xtalk.errors import InfrastructureError
from xtalk.spec.plan import plan
from xtalk.spec.load import parse_campaign

pytestmark = pytest.mark.skipif(shutil.which("qemu-system-x86_64") is None,
                                reason="qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)")

SPEC = """
name = "start"
cpus = [0]
[backend]
kind = "qemu"
arch = "x86_64"
{extra}
[measurer]
bench = "cpu_spin"
iterations = 1000000000  # runs until stopped
params = {{ spin = 1 }}
"""


def backend_and_run(extra: str = ""):
    spec, raw = parse_campaign(SPEC.format(extra=extra), "test")
    (run,) = plan(spec, raw)
    return QemuBackend({k: v for k, v in raw["backend"].items() if k != "kind"}), run


def test_qmp_pauses_continues_and_reports_errors(tmp_path):
    backend, run = backend_and_run()
    backend.prepare(run, tmp_path)
    handle = backend.start(run.measurer, run, paused=True)
    try:
        qmp = handle.backend_state["qmp"]
        assert qmp.cmd("query-status")["status"] == "prelaunch"
        assert [v["cpu"] for v in handle.facts["vcpus"]] == [0]
        backend.resume(handle)
        assert qmp.cmd("query-status")["running"] is True
        backend.pause(handle)
        assert qmp.cmd("query-status")["status"] == "paused"
        with pytest.raises(QmpError, match="no-such-command"):
            qmp.cmd("no-such-command")
    finally:
        backend.stop(handle)
        handle.ring.close()
        backend.cleanup(run)
    assert backend.poll_exit(handle) is not None


def test_a_qemu_that_dies_before_qmp_is_a_clear_error(tmp_path):
    backend, run = backend_and_run('extra_args = ["-no-such-option"]')
    backend.prepare(run, tmp_path)
    with pytest.raises(InfrastructureError, match="gave no QMP.*no-such-option"):
        backend.start(run.measurer, run)
    backend.cleanup(run)
