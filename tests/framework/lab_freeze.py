"""The Xen labs frozen while a test that runs alone and is not theirs runs (conftest.py): a lab
another worker left up between its group's tests is not idle for the host (a TCG
qemu-system-aarch64 took 104 % of a CPU in a same-core hog's solo runs), so what a timing
test measured included it. Freezing a lab: its ssh master connection closed first (a master
whose keep-alives go unanswered for 30 s dies, and the lab's next command with it), then
QMP `stop` (the guests' clocks stop too). Thawing it: QMP `cont`, then dom0 must answer a
fresh ssh connection (`true`) within xen_lab.HEALTH_S; one that does not is left to the lab
fixtures' own check before its next test (stopped and booted again).
Caveat: the room is the frozen test's alone (tests/framework/alone.py), so no lab test is
in flight while its lab is frozen.
"""
from __future__ import annotations

import socket
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

from tests.framework.xen_lab import HEALTH_S, QEMU, wants_lab


def _monitor(lab, command: str) -> bool:
    """`command` (stop, cont) to the lab's QMP socket; False (with a warning) where it did not take."""
    from xtalk.backends.qmp import Qmp
    from xtalk.errors import InfrastructureError
    try:
        with socket.socket(socket.AF_UNIX) as sock:
            sock.connect(str(lab.dir / "qmp.sock"))
            qmp = Qmp(sock, 10)
            qmp.handshake(command)
            qmp.close()
    except (OSError, InfrastructureError) as err:  # a lab going down: its next test's health check says so
        warnings.warn(f"the {lab.arch} lab's monitor did not take {command!r}: {err}", stacklevel=3)
        return False
    return True


def freeze(arch: str):
    """The running lab of `arch`, frozen; None where none runs or it could not be frozen."""
    from xtalk.lab.vm import current
    lab = current(arch)
    if lab is None:
        return None
    lab.executor().close()  # the shared master: no keep-alive of it goes unanswered while frozen
    return lab if _monitor(lab, "stop") else None


def thaw(lab) -> float:
    """The lab running again, once dom0 answers a fresh connection: the seconds that took."""
    from xtalk.errors import InfrastructureError
    started = time.monotonic()
    if _monitor(lab, "cont"):
        try:
            lab.executor().run(["true"], timeout=HEALTH_S, repeatable=True)
        except InfrastructureError as err:
            warnings.warn(f"the {lab.arch} lab, thawed, did not answer within {HEALTH_S} s: {err}", stacklevel=2)
    return time.monotonic() - started


@contextmanager
def labs_frozen(item, log: list[str]) -> Iterator[None]:
    """The running labs that `item` does not use frozen for its duration; what was done, in `log`."""
    frozen = [lab for arch in QEMU if not wants_lab(item, arch) and (lab := freeze(arch)) is not None]
    try:
        yield
    finally:
        for lab in frozen:
            log.append(f"the {lab.arch} lab was frozen while it ran (thawed, dom0 answering, in {thaw(lab):.1f} s)")
