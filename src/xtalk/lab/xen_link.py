"""How the xen backend reaches the lab's dom0 (backend executor = "lab"): the running lab
of the architecture asked for, started when there is none, its campaign lock held for the
campaign, and the lab's facts for the run metadata.

The backends must not import the lab (it boots Xen with QEMU, a layer above them):
`install()` hands `connect` to backends/host.py instead. The command line installs
it before any command runs (cli/main.py); a program that drives xtalk's campaigns from
Python with executor lab calls install() itself.
"""
from __future__ import annotations

import sys

from ..backends.xen import host
from ..remote.executors import Executor, LabLock
from ..backends.xen.xl import XenOptions
from ..errors import InfrastructureError
from . import vm

LAB_FACTS = ("arch", "cpus", "memory_mib", "dom0_mem_mib", "boot_s", "ssh_s", "image_dir", "pid")


def connect(opts: XenOptions, fresh: bool = False) -> tuple[Executor, LabLock, dict]:
    """(dom0's executor, the lab's campaign lock, now held, and the lab's facts); `fresh`:
    the running lab is stopped first and booted again (a dom0 that stopped answering)."""
    arch = opts.arch or "arm64"
    if fresh:
        vm.stop(arch, quiet=True)
    lab = vm.current(arch)
    if lab is None:
        lab = vm.start(arch, log=lambda msg: print(f"xtalk: {msg}", file=sys.stderr), xen=opts.lab_xen)
    elif lab.image.info.get("xen_flavour", "debian") != opts.lab_xen:
        raise InfrastructureError(
            f"backend.lab_xen is {opts.lab_xen!r} but the running {arch} lab boots the "
            f"{lab.image.info.get('xen_flavour', 'debian')!r} Xen: stop it first (xtalk lab stop --arch {arch})")
    lock = LabLock(lab.dir / "campaign.lock")
    lock.acquire()
    facts = {k: lab.state.get(k) for k in LAB_FACTS}
    facts["image"] = {k: v for k, v in lab.image.info.items() if k != "packages"}
    return lab.executor(), lock, facts


def install() -> None:
    """Let the xen backend reach the lab (executor = "lab")."""
    host.LAB_CONNECTOR = connect
