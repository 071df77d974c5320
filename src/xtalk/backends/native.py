"""The `native` backend: the bare-machine baseline. Workloads are host processes of the
same benchmark code the guests run (build/native/xtalk-bench for the probe benches,
build/posix/native/xtalk-rt for the rest of the POSIX real-time suite of the Linux guests), or the
steal injector build/native/xtalk-steal (bench "steal"), pinned with sched_setaffinity
before exec, in the spec's scheduling class (SCHED_RR/FIFO where permitted; what was
obtained is recorded per guest, with the reason when refused) — except steal, which
sets its own SCHED_FIFO priority (prio=) and reports it as XT META sched= prio=.
On x86_64 the probe program gets the TSC frequency as freq_hz=, calibrated once per
backend (backends/tsc.py) instead of ~50 ms at every start of it.
Other backends run their host stressors (`host = true`) through this one.

The measurer writes samples to a ring in /dev/shm; console = the process's stdout. A
stressor of the probe program gets a small ring there too, which counts its passes
(xtalk.running.pressure); the POSIX suite's and steal have none (their record says so).
No process is left behind: each workload runs in its own session (so Ctrl-C reaches
only xtalk, which then stops it), gets PR_SET_PDEATHSIG=SIGKILL (so it dies with xtalk
even on SIGKILL), and stop() kills and reaps its whole process group.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..images import artifacts
from ..plugins import BACKENDS
from ..host.arches import host_arch
from ..errors import InfrastructureError
from ..host.pinning import allowed_cpus
from ..results.run_record import BackendMetadata, GuestFacts
from ..spec import catalogue
from .base import Backend, GuestHandle, Vitals, local_cpu_problems, workload_args
from .tsc import host_tsc_hz
from .hostproc import affinity, apply_policy, kill_and_reap, signal_group, spawn, task_vitals

if TYPE_CHECKING:
    from ..spec.plan import GuestPlan, RunPlan  # the spec's models: not for a command that reads records

BINARY = "build/native/xtalk-bench"
RT_BINARY = "build/posix/native/xtalk-rt"  # the POSIX real-time suite (kernel-op latencies, thread metrics...)
STEAL_BINARY = "build/native/xtalk-steal"  # the steal injector (native/steal.c)
STEAL = "steal"
RING_CAPACITY = 1 << 20


class NativeMetadata(BackendMetadata):
    """metadata(): the programs the run's workloads ran, with their hashes, and the TSC's
    frequency its probes were given (x86_64)."""

    binary: str | None = None
    binary_sha256: str | None = None
    rt_binary: str | None = None
    rt_binary_sha256: str | None = None
    steal_binary: str | None = None
    steal_binary_sha256: str | None = None
    host_tsc_hz: int | None = None


class NativeGuestFacts(GuestFacts):
    """A workload's process: its command line, pid, CPUs and scheduling (or why refused)."""

    argv: list[str] | None = None
    pid: int | None = None
    affinity: list[int] | None = None
    sched: str | None = None
    priority: int | None = None
    sched_refused: str | None = None


@BACKENDS.register
class NativeBackend(Backend):
    name = "native"
    Metadata = NativeMetadata
    GuestFacts = NativeGuestFacts
    boot_s = 0.1

    @classmethod
    def accepts(cls, host: dict) -> tuple[bool, str]:
        if not sys.platform.startswith("linux"):
            return False, "the native backend needs Linux (sched_setaffinity, /dev/shm)"
        return True, ""

    no_images = "the native backend runs xtalk's programs as host processes and boots no guest image"

    @classmethod
    def suites(cls, options: dict) -> tuple[str, ...]:
        return ("probe", "posix", "steal")  # the probe benches, the POSIX suite and steal: host programs all

    @classmethod
    def check_spec(cls, raw: dict) -> list[tuple[tuple, str]]:
        return super().check_spec(raw) + local_cpu_problems(raw)

    def __init__(self, options: dict):
        super().__init__(options)
        self.binary: Path | None = None
        self.rt_binary: Path | None = None
        self.steal_binary: Path | None = None
        self.rt_benches: set[str] = set()
        self.freq_hz: int | None = None  # the TSC frequency the probe program is given (x86_64)
        self._rings: list[Path] = []
        self._procs: list[subprocess.Popen] = []  # stopped; console pipes closed at cleanup

    def host_backend(self) -> Backend:
        return self  # every workload here is a host process already

    def prepare(self, run: RunPlan, run_dir: Path) -> None:
        if self.binary is None:
            self.binary = artifacts.build("native", BINARY)
            self.steal_binary = artifacts.build("native", STEAL_BINARY)
            self.rt_binary = artifacts.build("posix", RT_BINARY)
            listed = subprocess.run([str(self.rt_binary), "list"], capture_output=True, text=True, timeout=30)
            # a probe bench xtalk-rt carries too (seed 003's) runs in the probe program here: the
            # bare-machine twin of the probe guests, and the suite the spec was checked against
            self.rt_benches = set(listed.stdout.split()) - set(catalogue.load().suites["probe"].benches)
            if host_arch() == "x86_64":
                self.freq_hz = host_tsc_hz(self.binary)
        online = allowed_cpus()
        missing = sorted({c for g in run.guests for c in g.cpus} - online)
        if missing:
            raise InfrastructureError(f"cpus {missing} are not available to xtalk (allowed: {sorted(online)})")

    def program(self, bench: str) -> Path:
        """The host program that runs this bench."""
        assert self.binary is not None and self.rt_binary is not None and self.steal_binary is not None
        if bench == STEAL:
            return self.steal_binary
        return self.rt_binary if bench in self.rt_benches else self.binary

    def start(self, guest: GuestPlan, run: RunPlan, paused: bool = False) -> GuestHandle:
        from ..telemetry.ring import PASS_RING_CAPACITY, RingReader, create_ring_file  # NumPy: once a guest starts

        program = self.program(guest.bench)
        argv = [str(program)] + workload_args(guest, run, host_cpus=True)
        if program == self.binary and self.freq_hz and "freq_hz" not in guest.params:
            argv.append(f"freq_hz={self.freq_hz}")
        ring = None
        if guest.role == "measurer" or program == self.binary:  # a probe stressor's ring counts its passes
            ring = Path(f"/dev/shm/xtalk-{os.getpid()}-{run.run_id}-{guest.name}.ring")
            create_ring_file(ring, RING_CAPACITY if guest.role == "measurer" else PASS_RING_CAPACITY)
            self._rings.append(ring)
            argv.append(f"ring={ring}")
        # the probe's vCPU threads pin themselves (vcpu_cpus=); xtalk-rt's threads take cpus= (their own)
        pinned = guest.cpus[:1] if guest.vcpus > 1 and program == self.binary else tuple(sorted(set(guest.cpus)))
        proc = spawn(argv, pinned, stopped=paused)
        handle = GuestHandle(guest, console_fd=proc.stdout.fileno(), pids=[proc.pid], backend_state=proc)
        # steal's class is its own (SCHED_FIFO prio=, default 50): it sets it and says so in XT META
        # sched=; set from here too, so a steal held paused from its start is real-time when resumed
        # next to a real-time measurer (else it could not run there to set it)
        # the POSIX suite gives its threads their real-time classes itself: setting the main thread's
        # class from here, after it started, would race with that (an unfair thread-metric interval)
        if guest.bench == STEAL:
            policy = apply_policy(proc.pid, "fifo", int(guest.params.get("prio", 50)))
        elif program == self.rt_binary:
            policy = {"sched": "own"}
        else:
            policy = apply_policy(proc.pid, run.spec.run.sched, run.spec.run.priority)
        handle.facts = {"argv": argv, "pid": proc.pid, **policy}
        handle.facts["affinity"] = affinity(proc.pid)  # None: already gone, poll_exit reports it
        if handle.facts["affinity"] not in (None, sorted(set(pinned))):
            self.stop(handle)
            raise InfrastructureError(f"{guest.name}: affinity {handle.facts['affinity']} is not {list(guest.cpus)}")
        if guest.role == "measurer":
            handle.ring = RingReader(ring)
        elif ring is not None:
            handle.passes = RingReader(ring)
        else:
            handle.no_passes = f"bench {guest.bench} runs in {program.name}, which counts no passes"
        return handle

    def pause(self, handle: GuestHandle) -> None:
        signal_group(handle.pids[0], signal.SIGSTOP)

    def resume(self, handle: GuestHandle) -> None:
        signal_group(handle.pids[0], signal.SIGCONT)

    def poll_exit(self, handle: GuestHandle) -> int | None:
        return handle.backend_state.poll()

    def vitals(self, handle: GuestHandle, fresh: bool = False) -> Vitals | None:
        return None if handle.backend_state.poll() is not None else task_vitals(handle.pids[0])

    def stop(self, handle: GuestHandle) -> None:
        kill_and_reap(handle.backend_state)
        self._procs.append(handle.backend_state)

    def cleanup(self, run: RunPlan) -> None:
        for proc in self._procs:
            proc.stdout.close()
        self._procs.clear()
        for path in self._rings:
            path.unlink(missing_ok=True)
        self._rings.clear()

    def metadata(self) -> dict:
        programs = (("binary", self.binary), ("rt_binary", self.rt_binary), ("steal_binary", self.steal_binary))
        return {"backend": self.name, "host_tsc_hz": self.freq_hz,
                **{key: str(path) if path else None for key, path in programs},
                **{f"{key}_sha256": artifacts.file_hash(path) if path else None for key, path in programs}}
