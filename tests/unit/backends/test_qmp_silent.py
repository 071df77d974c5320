"""A QEMU monitor that does not answer (QEMU starved of CPU time, or hung) ends the run as
an infrastructure error that says so, not as 'unexpected ... (a bug)' that stops the
campaign (backends/qmp.py)."""
import socket

import pytest

from xtalk.backends.qmp import Qmp, QmpError
from xtalk.errors import InfrastructureError, describe_failure


def test_a_silent_monitor_is_an_infrastructure_error_naming_the_command_and_the_wait():
    ours, qemu = socket.socketpair()
    try:
        with pytest.raises(QmpError) as caught:
            Qmp(ours, 0.2).cmd("cont")
        err = caught.value
        assert isinstance(err, InfrastructureError)
        assert str(err) == ("cont: QEMU's monitor did not answer within 0.2 s "
                            "(QEMU got no CPU time, e.g. a real-time task on its CPUs, or it hung)")
        assert describe_failure(err) == str(err)  # no "unexpected ... (a bug)"
        assert qemu.recv(100) == b'{"execute": "cont"}\n'
    finally:
        ours.close()
        qemu.close()


def test_a_closed_monitor_says_so():
    ours, qemu = socket.socketpair()
    qemu.close()
    with pytest.raises(QmpError, match="^query-status: monitor closed"):
        Qmp(ours, 1).cmd("query-status")
    ours.close()
