"""`echo`: a test-only backend, kept outside xtalk's package to prove that a backend is one
file which registers itself (docs/backends.md, "A backend of your own"). Each guest is a
plain child process of the native bench program (build/native/xtalk-bench) pinned to its
CPUs: the simplest real implementation of the Backend interface, written against it
alone (no code of the native backend). The measurer's samples go to a ring file in
/dev/shm, its console is its stdout; pause/resume are SIGSTOP/SIGCONT to the process.

A test makes xtalk find it the way a user's installed backend is found: an entry point
`echo = tests.framework.echo_backend` in the group `xtalk.backends` (echo_distribution).
Caveat: no scheduling class is set and nothing is watched (no vitals): a test backend.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.framework.plugin_distribution import installed
from xtalk.images import artifacts
from xtalk.plugins import BACKENDS
from xtalk.backends.base import Backend, GuestHandle, workload_args
from xtalk.results.run_record import BackendMetadata, GuestFacts
from xtalk.telemetry.ring import RingReader, create_ring_file

PROGRAM = "build/native/xtalk-bench"
RING_CAPACITY = 1 << 16


class EchoMetadata(BackendMetadata):
    """metadata(): the program its guests run (a backend's keys are its own: run_record.py
    holds a run's record to this model)."""

    program: str | None = None


class EchoGuestFacts(GuestFacts):
    argv: list[str]
    pid: int
    affinity: list[int]


@BACKENDS.register
class EchoBackend(Backend):
    name = "echo"
    Metadata = EchoMetadata
    GuestFacts = EchoGuestFacts

    @classmethod
    def accepts(cls, host: dict) -> tuple[bool, str]:
        return (True, "") if sys.platform.startswith("linux") else (False, "echo needs Linux")

    def __init__(self, options: dict):
        super().__init__(options)
        self.program: Path | None = None
        self.rings: list[Path] = []
        self.stopped: list[subprocess.Popen] = []

    def prepare(self, run, run_dir: Path) -> None:
        self.program = self.program or artifacts.build("native", PROGRAM)

    def start(self, guest, run, paused: bool = False) -> GuestHandle:
        argv = [str(self.program), *workload_args(guest, run)]
        ring = None
        if guest.role == "measurer":
            ring = Path(f"/dev/shm/xtalk-echo-{os.getpid()}-{run.run_id}-{guest.name}.ring")
            create_ring_file(ring, RING_CAPACITY)
            self.rings.append(ring)
            argv.append(f"ring={ring}")
        cpus = set(guest.cpus)
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                start_new_session=True, preexec_fn=lambda: os.sched_setaffinity(0, cpus))
        if paused:
            os.kill(proc.pid, signal.SIGSTOP)
        os.set_blocking(proc.stdout.fileno(), False)
        return GuestHandle(guest, console_fd=proc.stdout.fileno(), pids=[proc.pid], backend_state=proc,
                           ring=RingReader(ring) if ring else None,
                           facts={"argv": argv, "pid": proc.pid, "affinity": sorted(os.sched_getaffinity(proc.pid))})

    def pause(self, handle: GuestHandle) -> None:
        handle.backend_state.send_signal(signal.SIGSTOP)

    def resume(self, handle: GuestHandle) -> None:
        handle.backend_state.send_signal(signal.SIGCONT)

    def poll_exit(self, handle: GuestHandle) -> int | None:
        return handle.backend_state.poll()

    def stop(self, handle: GuestHandle) -> None:
        proc = handle.backend_state
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        self.stopped.append(proc)

    def cleanup(self, run) -> None:
        for proc in self.stopped:
            proc.stdout.close()
        self.stopped.clear()
        for ring in self.rings:
            ring.unlink(missing_ok=True)
        self.rings.clear()

    def metadata(self) -> dict:
        return {"backend": self.name, "program": str(self.program)}


def echo_distribution(where: Path) -> Path:
    """A directory that, on the Python path, is an installed distribution declaring this
    backend in the entry point group xtalk finds backends by."""
    return installed(where, "xtalk-echo-backend", {BACKENDS.group: __name__})
