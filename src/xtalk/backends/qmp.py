"""A synchronous QMP client over a connected socket (the qemu backend's socket pair):
QEMU's greeting, the capabilities negotiation, then one command at a time, each a JSON
line answered by a `return` or an `error` line (QEMU's wire protocol, docs/interop/qmp-spec).

Why not qemu.qmp: its synchronous shim runs an asyncio loop per call and formats every
message for its debug log, ~8 ms of CPU per guest start here, spent while the guest's
vCPU waits (on a 2-core host it is the same CPU). This is a few blocking reads instead.
Caveat: events (lines with `event`) are skipped, none is kept; the backend uses none.
A QmpError is an InfrastructureError: the run ends as an error, the campaign goes on.
"""
from __future__ import annotations

import json
import socket

from ..errors import InfrastructureError


class QmpError(InfrastructureError):
    """QEMU answered a command with an error, or the monitor closed or timed out: the run
    ends as an error with this line, the campaign goes on."""


class Qmp:
    def __init__(self, sock: socket.socket, timeout_s: float):
        sock.settimeout(timeout_s)
        self.sock = sock
        self.lines = sock.makefile("rb")

    def handshake(self, *commands: str) -> list:
        """QEMU's greeting (it comes once QEMU's machine is set up), capabilities
        negotiation, then `commands` (without arguments): all written at once, so one
        round trip instead of 2 + len(commands) (each a wake-up of QEMU and of us);
        QEMU reads them after its greeting, in order. Their return values, in order."""
        requests = [{"execute": name} for name in ("qmp_capabilities", *commands)]
        self._send(b"".join(json.dumps(r).encode() + b"\n" for r in requests), "qmp_capabilities")
        greeting = self._read("greeting")
        if "QMP" not in greeting:
            raise QmpError(f"not a QMP greeting: {greeting}")
        return [self._answer(r["execute"]) for r in requests][1:]

    def cmd(self, name: str, **arguments):
        """The command's `return` value; QmpError on its `error`."""
        message = {"execute": name} | ({"arguments": arguments} if arguments else {})
        self._send(json.dumps(message).encode() + b"\n", name)
        return self._answer(name)

    def _send(self, data: bytes, name: str) -> None:
        try:
            self.sock.sendall(data)
        except OSError as e:
            raise QmpError(f"{name}: monitor closed ({e})") from e

    def _answer(self, name: str):
        """The next answer's `return` (events before it skipped); QmpError on an `error`."""
        while True:
            reply = self._read(name)
            if "return" in reply:
                return reply["return"]
            if "error" in reply:
                raise QmpError(f"{name}: {reply['error'].get('desc', reply['error'])}")

    def _read(self, waiting_for: str) -> dict:
        try:
            line = self.lines.readline()
        except TimeoutError as e:
            raise QmpError(f"{waiting_for}: QEMU's monitor did not answer within {self.sock.gettimeout():g} s "
                           "(QEMU got no CPU time, e.g. a real-time task on its CPUs, or it hung)") from e
        except OSError as e:
            raise QmpError(f"{waiting_for}: {e}") from e
        if not line:
            raise QmpError(f"{waiting_for}: monitor closed")
        try:
            return json.loads(line)
        except ValueError as e:
            raise QmpError(f"{waiting_for}: not JSON: {line[:80]!r}") from e

    def close(self) -> None:
        self.lines.close()
        self.sock.close()
