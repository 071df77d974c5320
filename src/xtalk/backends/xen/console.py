"""The xen backend's guest consoles and domain watcher: a pipe the runner reads, fed by a
reader thread from a `tail -F` of the guest's console log through the executor (its own
ssh connection; started again from the next byte if it drops); and a thread that asks
`xl list` (or another listing: the dom0 stressors' processes, dom0.py) every POLL_S
so poll_exit never blocks the runner.
"""
from __future__ import annotations

import fcntl
import os
import threading
import time
from typing import Callable

from ...remote.executors import Executor
from .target import SILENT_S
from .xl import parse_xl_list

POLL_S = 0.5            # pause between two `xl list` of the watcher thread
MAX_RESTARTS = 3        # followers started again after ending early, per console


class GuestConsole:
    """A guest's console for the runner: a pipe, fed by a reader thread from a `tail -F`
    of the guest's console log through the executor (attached once the domain exists)."""

    def __init__(self):
        self.read_fd, self.write_fd = os.pipe()
        try:
            fcntl.fcntl(self.write_fd, 1031, 1 << 20)  # F_SETPIPE_SZ: room for a sample drain
        except OSError:
            pass
        os.set_blocking(self.read_fd, False)
        self.stream = None
        self.thread: threading.Thread | None = None
        self.forwarded = 0
        self.closed = threading.Event()
        self.closing = False
        self.restarts = 0
        self.failures: list[str] = []  # why followers ended early (their ssh's stderr)

    def attach(self, executor: Executor, path: str) -> None:
        self.executor, self.path = executor, path
        self.stream = executor.stream(["tail", "-c", "+1", "-F", path])
        self.thread = threading.Thread(target=self._pump, daemon=True, name=f"xen-console {path}")
        self.thread.start()

    def _pump(self) -> None:
        """Forward the follower's output; a follower that ends while we still want the
        console (its ssh connection dropped) is started again from the next byte."""
        try:
            while True:
                self._forward(self.stream.proc.stdout.fileno())
                if self.closing or self.restarts >= MAX_RESTARTS:
                    break
                self.failures.append(self.stream.error_text())
                self.restarts += 1
                time.sleep(0.2 * self.restarts)
                self.stream = self.executor.stream(["tail", "-c", f"+{self.forwarded + 1}", "-F", self.path])
        except Exception as err:  # noqa: BLE001 - the runner sees the console end; the reason is kept
            self.failures.append(str(err))
        finally:
            self.closed.set()

    def _forward(self, src: int) -> None:
        os.set_blocking(src, True)
        try:
            while True:
                data = os.read(src, 1 << 16)
                if not data:
                    return
                view = memoryview(data)
                while view:
                    n = os.write(self.write_fd, view)
                    view = view[n:]
                self.forwarded += len(data)
        except OSError:
            return

    def wait_for(self, size: int, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while (self.forwarded < size and time.monotonic() < deadline and self.thread is not None
               and not self.closed.is_set()):
            time.sleep(0.02)
        return self.forwarded >= size

    def close(self) -> None:
        self.closing = True
        if self.stream is not None:
            self.stream.close()
        if self.thread is not None:
            self.thread.join(timeout=5)
        if self.write_fd >= 0:
            os.close(self.write_fd)  # the runner sees EOF after the last byte
            self.write_fd = -1

    def close_read(self) -> None:
        if self.read_fd >= 0:
            os.close(self.read_fd)
            self.read_fd = -1


class DomainWatcher:
    """Asks `xl list` about all domains every POLL_S in a thread, so poll_exit never
    blocks the runner (an xl command takes ~1 s in a busy TCG lab); `poke` asks for the
    next listing at once. Each ask waits SILENT_S at most; `answered_s` is when dom0 last
    answered one (target.py tells a lost dom0 by it). `latest` = (host ns when the listing was asked for, listing).
    Another listing: `command` gives the argv (None: nothing to ask now), `parse` reads it."""

    def __init__(self, executor: Executor, command: Callable[[], list | None] = lambda: ["xl", "list"],
                 parse: Callable[[str], dict] = parse_xl_list):
        self.executor, self.command, self.parse = executor, command, parse
        self.latest: tuple[int, dict[str, dict]] = (0, {})
        self.answered_s = time.monotonic()  # when dom0 last answered an ask (monotonic s)
        self.asked = False  # whether an ask has ended, answered or not
        self.stop_event = threading.Event()
        self.wake = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True, name="xen-watch")
        self.thread.start()

    @property
    def listing(self) -> dict[str, dict]:
        return self.latest[1]

    @property
    def taken_ns(self) -> int:
        return self.latest[0]

    def _loop(self) -> None:
        while not self.stop_event.is_set():
            self.wake.clear()
            started = time.monotonic_ns()
            try:
                argv = self.command()
                result = self.executor.run(argv, timeout=SILENT_S, repeatable=True) if argv else None
                if result is not None:
                    self.answered_s = time.monotonic()  # dom0 answered, whatever it said
                    self.asked = True
                if result is not None and result.ok:
                    self.latest = (started, self.parse(result.stdout))
            except Exception:  # noqa: BLE001 - a failed poll is retried
                self.asked = True
            self.wake.wait(POLL_S)

    def poke(self) -> None:
        self.wake.set()

    def close(self) -> None:
        self.stop_event.set()
        self.wake.set()
        self.thread.join(timeout=70)
