"""The xen backend's console follower: a `tail -F` (here through the local executor) fed
into the runner's pipe, started again from the next byte when it dies early."""
from __future__ import annotations

import os
import signal
import time

from xtalk.remote.executors import LocalExecutor
from xtalk.backends.xen.console import GuestConsole


def _wait(predicate, timeout=10.0):
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.02)


def _drain(fd: int) -> bytes:
    chunks = []
    while True:
        try:
            data = os.read(fd, 1 << 16)
        except BlockingIOError:
            break
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks)


def test_a_follower_that_dies_is_started_again_from_the_next_byte(tmp_path):
    log = tmp_path / "guest-x.log"
    log.write_bytes(b"XT BEGIN run=r\n")
    console = GuestConsole()
    console.attach(LocalExecutor(), str(log))
    try:
        _wait(lambda: console.forwarded == 15)
        first = console.stream.proc
        os.killpg(first.pid, signal.SIGKILL)  # the follower's connection drops
        first.wait()
        with open(log, "ab") as f:
            f.write(b"XT END run=r status=pass\n")
        _wait(lambda: console.forwarded == 40)
        assert console.restarts == 1 and console.stream.proc is not first
        assert console.failures == ["follower ended (status -9)"]
    finally:
        console.close()
    assert _drain(console.read_fd) == b"XT BEGIN run=r\nXT END run=r status=pass\n"  # nothing twice
    console.close_read()


def test_a_closed_console_is_not_started_again(tmp_path):
    log = tmp_path / "guest-y.log"
    log.write_bytes(b"hello\n")
    console = GuestConsole()
    console.attach(LocalExecutor(), str(log))
    _wait(lambda: console.forwarded == 6)
    console.close()
    assert console.closed.is_set() and console.restarts == 0 and console.failures == []
    assert _drain(console.read_fd) == b"hello\n"
    console.close_read()
