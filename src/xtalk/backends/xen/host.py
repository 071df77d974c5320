"""The Xen host as the xen backend reaches it: the connection to dom0 and what that Xen is.

Connection: an executor, local (xtalk runs in dom0), ssh (a board's dom0) or the lab
(started on demand; the lab's campaign lock is held until release()). The lab is a layer
above the backends: it plugs in how to reach it (LAB_CONNECTOR, set by
xtalk.lab.xen_link.install(), which the command line calls). run() and xl()
run a command there; a command that is safe to repeat (queries, `xl destroy`) is run
once more after one second when the transport fails, and every such failure is passed
to the `note` callback (the backend's per-run `transport_failures`).

What the Xen is, read once at connection: `xl info` (machine, pCPUs, version, default
scheduler), the build's .config from hypfs (its schedulers, LLC colouring; without
hypfs the schedulers are probed by creating an empty cpupool per scheduler) and, on
x86-64, the TSC rate from `xl dmesg`.
Caveat: these facts are read again only when xtalk restarts the lab (restart(), target.py):
a dom0 that reboots mid-campaign otherwise (a board restarted by hand) is taken to be the
same Xen.
"""
from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Callable

from ...host.arches import normalise
from ...errors import InfrastructureError, Problem, SpecError
from ...remote.executors import Executor, LabLock, LocalExecutor, SshExecutor
from .images import PROBE_IMAGES
from .xl import SCHEDULERS, XenOptions, colours_wanted, llc_coloring_on, parse_xl_info, schedulers_from_config

READ_ONLY_XL = {"info", "list", "dmesg", "cpupool-list", "vcpu-list", "destroy"}  # safe to repeat
# executor = "lab": (options, fresh) -> (dom0's executor, the lab's campaign lock, held, the
# lab's facts); fresh: the running lab is stopped and booted again first
LAB_CONNECTOR: Callable[[XenOptions, bool], tuple[Executor, LabLock, dict]] | None = None


class XenHost:
    """Dom0 reached through an executor, and the facts of its Xen (info, arch, nr_cpus,
    xen_version, schedulers, build_config, tsc_hz; lab_state with executor lab)."""

    def __init__(self, opts: XenOptions, note: Callable[[str], None]):
        self.opts, self.note = opts, note
        self.lock: LabLock | None = None
        self.lab_state: dict | None = None
        self.executor = self._connect()
        try:
            self._probe()
        except BaseException:
            self.release()
            raise

    def _connect(self, fresh: bool = False) -> Executor:
        o = self.opts
        if o.executor == "local":
            return LocalExecutor()
        if o.executor == "ssh":
            user, _, host = o.ssh_host.rpartition("@")
            return SshExecutor(host=host, port=o.ssh_port, user=user or None,
                               identity=Path(o.ssh_identity).expanduser() if o.ssh_identity else None,
                               known_hosts=Path(o.ssh_known_hosts).expanduser() if o.ssh_known_hosts else None,
                               label=o.ssh_host)
        if LAB_CONNECTOR is None:
            raise InfrastructureError("executor = \"lab\" needs xtalk's Xen lab, which this program did not install "
                                      "(xtalk.lab.xen_link.install(); the xtalk command does it)")
        executor, self.lock, self.lab_state = LAB_CONNECTOR(o, fresh)
        return executor

    def xl(self, *args, timeout: float = 60.0, check: bool = True):
        retry = args[0] in READ_ONLY_XL or (args[0].startswith("sched-") and "-d" not in args[1:2]
                                            and len(args) <= 4)
        result = self.run(["xl", *args], timeout=timeout, retry=retry)
        return result.check() if check else result

    def run(self, argv: list, timeout: float = 60.0, retry: bool = True):
        """`retry`: a command that may safely run twice (a read, an idempotent script): sent
        as repeatable, and once more when the transport fails (an ssh hiccup), so a flaky
        link does not fail a run. Any other is claimed in dom0: run at most once."""
        try:
            return self.executor.run(argv, timeout=timeout, repeatable=retry)
        except InfrastructureError as err:
            if not retry:
                raise
            self.note(str(err))
            time.sleep(1.0)
            return self.executor.run(argv, timeout=timeout, repeatable=True)

    def file_size(self, path: str) -> int:
        """Size in bytes of a file in dom0; 0 when it cannot be read."""
        r = self.run(["stat", "-c", "%s", path])
        return int(r.stdout.strip()) if r.ok and r.stdout.strip().isdigit() else 0

    def _probe(self) -> None:
        first = self.xl("info", check=False)
        if first.returncode == 127 and self.opts.executor == "local":
            raise InfrastructureError("xl not found: executor = \"local\" means xtalk runs in dom0 of a Xen host; "
                                      "from elsewhere use executor = \"ssh\" (ssh_host) or \"lab\"")
        info = first.check().stdout
        self.info = parse_xl_info(info)
        machine = normalise(self.info.get("machine")) or self.info.get("machine")
        if self.opts.arch and machine != self.opts.arch:
            raise InfrastructureError(f"backend.arch is {self.opts.arch} but dom0 runs on {machine}")
        if machine not in PROBE_IMAGES:
            raise InfrastructureError(f"no probe image for a Xen host of machine {machine!r}")
        self.arch = machine
        self.nr_cpus = int(self.info.get("nr_cpus", "0") or 0)
        self.xen_version = self.info.get("xen_version", "")
        config = self.run(["xenhypfs", "cat", "/buildinfo/config"], timeout=30)
        self.build_config = config.stdout if config.ok else None
        self.sched_source = "hypfs /buildinfo/config"
        self.schedulers = schedulers_from_config(config.stdout) if config.ok else None
        if self.schedulers is None:
            self.sched_source = "probed with empty cpupools"
            self.schedulers = [s for s in SCHEDULERS if self._scheduler_works(s)]
        self.tsc_hz = None
        if self.arch == "x86_64":
            m = re.search(r"Detected ([\d.]+) MHz processor", self.xl("dmesg").stdout)
            self.tsc_hz = int(float(m[1]) * 1e6) if m else None

    def _scheduler_works(self, sched: str) -> bool:
        name = f"{self.opts.name_prefix}-probe-{sched}"
        made = self.xl("cpupool-create", f'name="{name}"', f'sched="{sched}"', check=False)
        if made.ok:
            self.xl("cpupool-destroy", name, check=False)
        return made.ok

    def check_scheduler(self, opts: XenOptions, where: str) -> None:
        """SpecError unless this Xen has the scheduler and LLC colouring opts ask for."""
        if opts.scheduler and opts.scheduler not in self.schedulers:
            raise SpecError("backend", [Problem(where, (
                f"scheduler {opts.scheduler!r} is not in this Xen build ({self.xen_version}, {self.sched_source});"
                f" it offers: {', '.join(self.schedulers) or 'none'}"))])
        if colours_wanted(opts) and not llc_coloring_on(self.info, self.build_config):
            raise SpecError("backend", [Problem("backend.llc_colors", (
                f"LLC colouring needs Xen >= 4.20 built with CONFIG_LLC_COLORING and booted with "
                f"llc-coloring=on; this is Xen {self.xen_version}"))])

    def restartable(self) -> bool:
        """Whether xtalk can restart this dom0: the lab's, by booting the lab again."""
        return self.opts.executor == "lab"

    def restart(self) -> None:
        """Boot the lab again and reconnect (a dom0 that stopped answering); the facts of
        its Xen are read again."""
        self.release()
        try:
            self.executor.close()
        except Exception:  # noqa: BLE001 - a master connection to a frozen dom0: nothing to close
            pass
        self.executor = self._connect(fresh=True)
        self._probe()

    def release(self) -> None:
        """Give the lab's campaign lock back (nothing to do for local and ssh)."""
        if self.lock is not None:
            self.lock.release()
            self.lock = None

    def __del__(self):
        self.release()
