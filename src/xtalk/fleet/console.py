"""A board's serial console, captured for a run: the place's `NetworkSerialPort` (ser2net,
raw TCP or RFC 2217) is opened through labgrid's SerialDriver (which builds the
`socket://` or `rfc2217://` URL, through LG_PROXY where set) and read by a thread into a
file for the run's whole lifetime, its power cycle included (the boot log is caught).

Losing the console never fails a run: the loss is noted (`problems`) and the port opened
again every RETRY_S until the run ends. A place without a NetworkSerialPort captures
nothing and says so. What a run's meta.json gets is `facts()`.
Caveats: the thread reads the pyserial object the driver opened (`driver.serial`), not
the driver's read(): labgrid's steps (read is one) keep a global stack that threads must
not share. Only what the board prints while the run's capture is open is kept (ser2net
drops output no client reads).
"""
from __future__ import annotations

import threading
import time
from pathlib import Path

from labgrid import target_factory

from .boards import LABGRID_LOCK
from .lease import Place

LOG = "serial.log"
READ_S = 0.2
RETRY_S = 1.0
OPEN_TIMEOUT_S = 10.0


class SerialCapture:
    """`with SerialCapture(place, path):` reads the place's serial console into `path`."""

    def __init__(self, place: Place, path: Path):
        self.place, self.path = place, path
        self.port = place.resource("NetworkSerialPort")
        self.problems: list[str] = []
        self.bytes = 0
        self.started = time.monotonic()
        self.done = threading.Event()
        self.tried = threading.Event()  # the first open is done (or failed): the run may start
        self.thread = threading.Thread(target=self._read, name=f"serial {place.name}", daemon=True)

    def __enter__(self) -> "SerialCapture":
        if self.port is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.thread.start()
            self.tried.wait(OPEN_TIMEOUT_S)
        return self

    def __exit__(self, *exc) -> None:
        self.done.set()
        if self.thread.is_alive():
            self.thread.join(10)

    def facts(self) -> dict:
        if self.port is None:
            return {"log": None, "why": f"place {self.place.name} has no NetworkSerialPort resource"}
        return {"log": LOG, "port": f"{self.port.get('host')}:{self.port.get('port')}",
                "protocol": self.port.get("protocol", "rfc2217"), "bytes": self.bytes, "problems": self.problems}

    def _open(self):
        with LABGRID_LOCK:
            target = target_factory.make_target(f"{self.place.name}-console", {
                "resources": [{"NetworkSerialPort": dict(self.port)}], "drivers": [{"SerialDriver": {}}]})
            return target, target.get_driver("ConsoleProtocol")

    def _read(self) -> None:
        last = None
        with open(self.path, "ab") as log:
            while not self.done.is_set():
                target = None
                try:
                    target, driver = self._open()
                    driver.serial.timeout = READ_S
                    self.tried.set()
                    while not self.done.is_set():
                        data = driver.serial.read(max(1, driver.serial.in_waiting))
                        if data:
                            last = None
                            log.write(data)
                            log.flush()
                            self.bytes += len(data)
                except Exception as err:  # noqa: BLE001 - pyserial's, labgrid's, the socket's: noted, retried
                    problem = f"{type(err).__name__}: {err}"
                    if problem != last:  # not again for each retry
                        self.problems.append(f"at {time.monotonic() - self.started:.1f} s: {problem}")
                    last = problem
                    self.tried.set()
                    self.done.wait(RETRY_S)
                finally:
                    if target is not None:
                        with LABGRID_LOCK:
                            target.cleanup()
