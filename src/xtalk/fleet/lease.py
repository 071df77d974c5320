"""Hold a fleet's places for a campaign's lifetime: reserve every place through labgrid,
acquire (lock) it, and give everything back on every way out (the end, an error, Ctrl-C,
SIGTERM: the `with` block's exit). A lease guard process (guard.py) releases them if
xtalk is SIGKILLed. Each place's labgrid resources (NetworkService, power, serial) are
read once it is acquired.
"""
from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass

from ..errors import InfrastructureError
from ..remote.coordinator import Coordinator
from .model import BoardKind, Fleet


@dataclass(frozen=True)
class Place:
    """An acquired place: its kind, and its resources as labgrid target config entries."""

    name: str
    kind: BoardKind
    resources: tuple[dict, ...]

    def resource(self, cls: str) -> dict | None:
        return next((dict(r[cls]) for r in self.resources if cls in r), None)


class Lease:
    def __init__(self, fleet: Fleet, chosen: list[tuple[str, BoardKind]]):
        self.fleet, self.chosen = fleet, chosen
        self.places: list[Place] = []
        self.guard: subprocess.Popen | None = None
        self.held: list[str] = []
        self.tokens: list[str] = []

    def _tell(self, line: str) -> None:
        self.guard.stdin.write(f"{line}\n".encode())
        self.guard.stdin.flush()

    def __enter__(self) -> list[Place]:
        with Coordinator(self.fleet.coordinator) as lab:
            env = dict(os.environ, LG_HOSTNAME=lab.identity.split("/")[0], LG_USERNAME=lab.identity.split("/")[1])
            self.guard = subprocess.Popen([sys.executable, "-m", "xtalk.fleet.guard", self.fleet.coordinator],
                                          stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env,
                                          start_new_session=True)
            try:
                lab.reserve([n for n, _ in self.chosen], self.fleet.reserve_timeout_s, self._token)
                for name, kind in self.chosen:
                    self._tell(f"place {name}")
                    lab.acquire(name)
                    self.held.append(name)
                    self.places.append(Place(name, kind, tuple(lab.resources(name))))
            except BaseException:
                self._release(lab)
                raise
        return self.places

    def _token(self, token: str) -> None:
        self.tokens.append(token)
        self._tell(f"token {token}")

    def _release(self, lab: Coordinator) -> None:
        problems = lab.release(self.held, self.tokens)
        if problems:
            raise InfrastructureError("labgrid: " + "; ".join(problems))
        self._tell("released")
        self.guard.stdin.close()
        self.guard.wait(10)

    def __exit__(self, *exc) -> None:
        try:
            with Coordinator(self.fleet.coordinator) as lab:
                self._release(lab)
        except InfrastructureError:
            if exc[0] is None:
                raise
            # the campaign's own error goes first; the guard (stdin closed, no 'released') retries
            self.guard.stdin.close()
