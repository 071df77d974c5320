"""The Xen lab's pace, measured while a test's campaign runs: where the lab tests' bounds on
time come from, instead of a number tuned on one day. Under TCG every dom0 command takes
what the emulator gives it (a few tenths of a second on a quiet 2-core host, seconds when the
host is busy or the campaign's vCPUs starve dom0), so a bound on a timeline event's
lateness is a count of dom0 commands times the round trips measured beside it.

`DomZeroPace(arch)`, used as a context manager around a campaign, times `xl list` over ssh
every PERIOD_S on its own; `.bound(commands)` is the time that many commands may take.
Caveat: the sampler is one more ssh session into dom0, at a low rate (~1 command a second).
"""
from __future__ import annotations

import threading
import time

PERIOD_S = 1.0
# a timeline event in the lab: the watch's reading before it, `xl pause/unpause` (or the dom0
# stressor's start/stop), the reading after it; and the reading in progress at the planned time
EVENT_COMMANDS = 4
# an event's commands may meet slower moments than any the sampler saw: a factor on its slowest
SLOWEST_MARGIN = 1.5


class DomZeroPace:
    def __init__(self, arch: str):
        self.arch = arch
        self.round_trips: list[float] = []
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> DomZeroPace:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._done.set()
        self._thread.join()

    def _sample(self) -> None:
        from xtalk.errors import InfrastructureError
        from xtalk.lab.vm import current
        executor = current(self.arch).executor()
        while not self._done.is_set():
            started = time.monotonic()
            try:
                executor.run(["xl", "list"], timeout=60)
            except InfrastructureError:  # a dropped master (a test that drops it): the next call opens one
                pass
            else:
                self.round_trips.append(time.monotonic() - started)
            self._done.wait(PERIOD_S)

    def bound(self, commands: int = EVENT_COMMANDS) -> float:
        """Seconds that `commands` dom0 commands may take at the pace measured."""
        assert self.round_trips, "no dom0 round trip was measured"
        return commands * max(self.round_trips) * SLOWEST_MARGIN

    def __str__(self) -> str:
        trips = sorted(self.round_trips)
        return (f"{len(trips)} dom0 round trips of {trips[0]:.2f}-{trips[-1]:.2f} s (median "
                f"{trips[len(trips) // 2]:.2f} s)" if trips else "no dom0 round trip measured")
