"""A board: where a fleet's run executes. Every run goes to an `xtalk worker` process
(cli/worker_cmd.py) that runs it and sends its run directory back as a tar stream:
  reach = worker    the worker runs on the board, over ssh (the place's NetworkService);
  a backend's reach the worker runs here, with what that backend's board_values sets in
                    the spec (xen-dom0: the xen backend driving the board's dom0 over
                    ssh, backend.executor = ssh, host and port from the NetworkService).
Power goes through the labgrid power driver of the place's power resource; after a
power cycle the board must answer ssh within the kind's boot_timeout_s.

A board that stops answering (ssh's connection lost: status 255 with no run sent back; or
no answer to `check`, the health check before a run: ssh `true` within HEALTH_TIMEOUT_S)
raises BoardDown, whose reason says since when it was silent (its last sign of life: a
progress tick of its worker, the start of the run, its last answer); one that sends back
a run xtalk does not take (a bad tar stream, over the fleet's max_run_mib, a meta.json
that cannot be read: unpack.py) raises BoardSuspect, after its worker (or ssh) was
stopped and what was unpacked removed. What the campaign does with either: decisions.py.
Caveats: labgrid's drivers are not thread-safe (a global step stack), so power cycles of
the boards take turns. ssh notices a board that vanished without closing its connections (power cut on
a real network) after ServerAliveInterval x ServerAliveCountMax = 30 s. Only the worker's
progress ticks count as a sign of life during a run: its other stderr lines cannot be
told from ssh's own (which come after the board fell silent).
"""
from __future__ import annotations

import collections
import datetime as dt
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from labgrid import target_factory

from ..backends.base import BoardAccess
from ..remote.executors import SshExecutor
from ..errors import InfrastructureError
from ..results.records import RecordError
from ..results.store import read_run_record
from .lease import Place
from .model import WORKER, BoardKind
from .unpack import RunCut, RunRefused, unpack_run

STOP_GRACE_S = 30.0  # how long an interrupted worker may take to store and send its run
HANG_UP_S = 5.0  # how long a worker whose run was refused may take to go once its stream is closed
POWER_DRIVERS = {"NetworkPowerPort": "NetworkPowerDriver", "PDUDaemonPort": "PDUDaemonDriver",
                 "NetworkUSBPowerPort": "USBPowerDriver", "NetworkYKUSHPowerPort": "YKUSHPowerDriver",
                 "NetworkSiSPMPowerPort": "SiSPMPowerDriver", "TasmotaPowerPort": "TasmotaPowerDriver"}
SSH_LOST = 255
HEALTH_TIMEOUT_S = 30.0  # how long a board may take to answer the health check (ssh `true`)
STORED = (0, 130, 3)  # the worker's statuses when it stored its run and sent it
LABGRID_LOCK = threading.Lock()  # labgrid's drivers keep a global step stack: one driver call at a time


def board_values(kind: BoardKind, raw: dict, host: str, port: int | None = None) -> dict:
    """What a board of this kind at ssh `host` ([user@]address) and `port` sets in the spec
    `raw`: its reach backend's board_values, with the kind's options for that backend and
    its ssh key files; {} for reach = worker."""
    backend = kind.reach_backend()
    if backend is None:
        return {}
    access = BoardAccess(host, port, kind.ssh_identity, kind.ssh_known_hosts)
    return backend.board_values(kind.backend_options(), raw.get("backend") or {}, access)


class BoardDown(InfrastructureError):
    """The board stopped answering; `since`: its last sign of life (epoch seconds), if any."""

    def __init__(self, message: str, since: float | None = None):
        super().__init__(message)
        self.since = since


class BoardSuspect(BoardDown):
    """The board sent a run xtalk does not take: nothing it sends can be trusted."""


def utc_text(t: float) -> str:
    """Epoch seconds as '2025-03-01 14:05:09 UTC'."""
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


class Board:
    def __init__(self, place: Place, max_run_mib: int):
        self.place, self.kind, self.max_run_mib = place, place.kind, max_run_mib
        service = place.resource("NetworkService")
        if service is None:
            raise InfrastructureError(f"labgrid place {place.name} has no NetworkService resource (how xtalk "
                                      "reaches the board over ssh)")
        self.ssh = SshExecutor(service["address"], service.get("port") or 22, service.get("username"),
                               Path(self.kind.ssh_identity) if self.kind.ssh_identity else None,
                               Path(self.kind.ssh_known_hosts) if self.kind.ssh_known_hosts else None,
                               label=f"board {place.name}")
        self.address = f"{service.get('username')}@{service['address']}:{service.get('port') or 22}"
        self._power = None
        self.heard: tuple[float, str] | None = None  # its last sign of life: (epoch seconds, what it was)

    def facts(self) -> dict:
        """What every run's meta.json says about where it ran (`fleet`)."""
        return {"place": self.place.name, "kind": self.kind.name, "reach": self.kind.reach, "address": self.address}

    # signs of life
    def hear(self, what: str) -> None:
        self.heard = (time.time(), what)

    def silence(self) -> str:
        """Since when the board has been silent, in words."""
        if self.heard is None:
            return "not heard from since xtalk took its place"
        at, what = self.heard
        return f"silent since {utc_text(at)} ({what})"

    def down(self, what: str) -> BoardDown:
        return BoardDown(f"board {self.place.name} {what}; {self.silence()}", self.heard and self.heard[0])

    def _no_answer(self, timeout_s: float) -> str | None:
        """Why the board did not answer ssh `true` within `timeout_s`; None when it did."""
        try:
            probe = subprocess.run(self.ssh.ssh_argv(shared=False) + ["true"], capture_output=True, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return f"no answer within {timeout_s:g} s"
        if probe.returncode == 0:
            return None
        return probe.stderr.decode(errors="replace").strip() or f"ssh status {probe.returncode}"

    def check(self) -> None:
        """The health check before a run: raises BoardDown when the board does not answer."""
        why = self._no_answer(HEALTH_TIMEOUT_S)
        if why is not None:
            raise self.down(f"did not answer the health check (ssh true: {why})")
        self.hear("its answer to the health check")

    # power
    def power_resource(self) -> tuple[str, dict] | None:
        """The place's first power resource (its class, its arguments), or None."""
        return next(((cls, r[cls]) for r in self.place.resources for cls in r if cls in POWER_DRIVERS), None)

    def power_driver(self):
        if self._power is None:
            found = self.power_resource()
            if found is None:
                raise InfrastructureError(f"labgrid place {self.place.name} has no power resource ("
                                          f"{', '.join(POWER_DRIVERS)}): run.power_cycle needs one")
            cls, args = found
            target = target_factory.make_target(self.place.name, {
                "resources": [{cls: dict(args)}], "drivers": [{POWER_DRIVERS[cls]: {"delay": 1.0}}]})
            self._power = target.get_driver("PowerProtocol")
        return self._power

    def power_cycle(self) -> None:
        try:
            with LABGRID_LOCK:
                self.power_driver().cycle()
        except InfrastructureError:
            raise
        except Exception as err:  # noqa: BLE001 - a power switch's own error (HTTP, USB)
            raise self.down(f"could not be power-cycled: {type(err).__name__}: {err}") from None
        self.wait_up()

    def wait_up(self) -> None:
        end = time.monotonic() + self.kind.boot_timeout_s
        while (why := self._no_answer(HEALTH_TIMEOUT_S)) is not None:
            if time.monotonic() > end:
                raise self.down(f"did not answer ssh within boot_timeout_s = {self.kind.boot_timeout_s:g} s after "
                                f"its power cycle: {why}")
            time.sleep(0.5)
        self.hear("its answer after a power cycle")

    # runs
    def worker_argv(self) -> list[str]:
        if self.kind.reach != WORKER:
            return [sys.executable, "-m", "xtalk.cli.main", "worker"]
        remote = f"{self.kind.worker_command} worker"
        if self.kind.worker_dir:
            remote = f"cd {shlex.quote(self.kind.worker_dir)} && exec {remote}"
        return self.ssh.ssh_argv(shared=False) + [remote]

    def values(self, raw: dict) -> dict:
        """Spec values this board sets (its reach backend's board_values), none for a worker board."""
        host = f"{self.ssh.user}@{self.ssh.host}" if self.ssh.user else self.ssh.host
        return board_values(self.kind, raw, host, self.ssh.port)

    def execute(self, job: dict, incoming: Path, stop: threading.Event, tick) -> Path:
        """Run `job` on the board; returns the directory its run was unpacked to. Raises
        BoardDown when the board stopped answering, BoardSuspect when what it sent is not
        taken, InfrastructureError when the worker failed before storing a run."""
        proc = subprocess.Popen(self.worker_argv(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)  # Ctrl-C is ours to pass on
        tail: collections.deque[str] = collections.deque(maxlen=8)
        self.hear("the start of its run")
        readers = [threading.Thread(target=self._stderr, args=(proc, tail, tick), daemon=True),
                   threading.Thread(target=self._stopper, args=(proc, stop), daemon=True)]
        for t in readers:
            t.start()
        try:
            proc.stdin.write((json.dumps(job) + "\n").encode())
            proc.stdin.flush()
        except OSError:
            pass  # it is gone already: its status says why
        incoming.mkdir(parents=True)
        refused = cut = None
        try:
            unpack_run(proc.stdout, incoming, self.max_run_mib)
        except RunRefused as err:
            refused = f"sent a run {err}"
            self._hang_up(proc)
        except RunCut as err:
            cut = f"sent a run cut short ({err})"
            tail.append(f"(the run came back cut: {err})")
        rc = proc.wait()
        for t in readers:
            t.join(timeout=5)
        if refused is None and rc in STORED:
            if cut is not None:
                refused = f"{cut}, and its worker said it was sent whole"
            elif (incoming / "meta.json").is_file():
                refused = self._not_taken(incoming, job["as"]["run_id"], job["attempt"])
                if refused is None:
                    self.hear("the end of its last run")
                    return incoming
        if refused is not None:
            shutil.rmtree(incoming)  # nothing of it is stored: the run is stored as 'error' with the reason
            raise BoardSuspect(f"board {self.place.name} {refused} (the board is suspect: no more runs go to it)")
        said = " / ".join(line for line in tail if line) or f"status {rc}"
        if rc == SSH_LOST and self.kind.reach == WORKER:
            raise self.down(f"stopped answering ({said})")
        raise InfrastructureError(f"board {self.place.name}: the worker failed: {said}")

    @staticmethod
    def _not_taken(incoming: Path, run_id: str, attempt: int) -> str | None:
        """Why the run the worker sent cannot be taken as attempt `attempt` of `run_id`, or None."""
        try:
            meta = read_run_record(incoming)
        except RecordError as err:
            return f"whose meta.json cannot be read ({err.reason})"
        if (meta.get("run_id"), meta.get("attempt")) != (run_id, attempt):
            return (f"that is attempt {meta.get('attempt')!r} of {meta.get('run_id')!r}, not the attempt {attempt} "
                    f"of {run_id!r} it was asked for")
        return None

    @staticmethod
    def _hang_up(proc: subprocess.Popen) -> None:
        """Stop reading the worker: closing its stream ends it (or its ssh, and the board's
        worker with the connection) at its next write; one that does not write is killed,
        with everything in its session."""
        proc.stdout.close()
        try:
            proc.wait(HANG_UP_S)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)

    def _stderr(self, proc: subprocess.Popen, tail, tick) -> None:
        for raw in proc.stderr:
            line = raw.decode(errors="replace").strip()
            if line.startswith("@@xtalk t_s="):
                value = line.split("=", 1)[1]
                self.hear("its worker's last progress tick" + ("" if value == "-" else f", {value} s into the run"))
                tick(None if value == "-" else float(value))
            elif line:
                tail.append(line.removeprefix("xtalk: error: "))

    @staticmethod
    def _stopper(proc: subprocess.Popen, stop: threading.Event) -> None:
        while proc.poll() is None:
            if stop.wait(0.2):
                try:
                    proc.stdin.close()  # EOF: the worker stops the run, stores it, sends it
                except OSError:
                    pass
                try:
                    proc.wait(STOP_GRACE_S)
                except subprocess.TimeoutExpired:
                    proc.kill()
                return
