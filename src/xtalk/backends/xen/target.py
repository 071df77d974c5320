"""Whether dom0 still answers, and what the xen backend does when it stops: the run in
progress fails, the target is restarted before the next run where xtalk can restart it,
and a target that stops again is set aside for the rest of the campaign.

- While a run goes on, the domain watcher (console.py) asks dom0 every POLL_S, each ask
  bounded by SILENT_S; poll_exit raises TargetLost once no ask has been answered for
  SILENT_S, naming when dom0 last answered. The run is stored as 'error' with that.
- Cleanup after a lost target does not talk to it (each command would wait its
  deadline); the next run's prepare checks it (`true`, bounded by CHECK_S) and, when it
  does not answer, restarts it: the emulated lab is stopped and booted again (executor
  "lab": the lab's own stop and start, through XenHost.restart). A dom0 reached over ssh
  or run locally cannot be restarted from here (a fleet's board is power-cycled by the
  fleet, fleet/campaign.py): it is set aside at once.
- MAX_RESTARTS restarts a campaign; a target lost after them is set aside: every later
  run of the campaign fails at once with the reason, instead of each waiting out its
  deadlines.
Each decision (restarted, set aside) is kept for the next run's metadata (`target`), with
its time and reason; the runner adds it to campaign.json (`targets`, running/campaign.py),
which `xtalk show` and the report list.
Caveat: a dom0 that answers `true` but whose xl hangs is seen only by the watcher, one
run later.
"""
from __future__ import annotations

import datetime as dt
import time

from ...errors import InfrastructureError

SILENT_S = 30.0  # no answer from dom0 for this long: the target is lost
CHECK_S = 15.0   # the health check's deadline (a busy emulated dom0 answers in ~0.2-3 s)
MAX_RESTARTS = 1


class TargetLost(InfrastructureError):
    """dom0 stopped answering."""


def clock(monotonic_s: float) -> str:
    """A monotonic time as the wall-clock time it was (HH:MM:SS)."""
    wall = time.time() - (time.monotonic() - monotonic_s)
    return dt.datetime.fromtimestamp(wall).strftime("%H:%M:%S")


class TargetGuard:
    """The health of one xen backend's dom0 over a campaign (the module's docstring)."""

    def __init__(self, host, where: str):
        self.host, self.where = host, where
        self.lost: str | None = None       # why the last run lost the target
        self.set_aside: str | None = None
        self.restarts = 0
        self.decisions: list[dict] = []    # for the next run's metadata

    def silent(self, last_answer_s: float, asked: bool) -> None:
        """Raise TargetLost when dom0 has not answered the watcher for SILENT_S."""
        if asked and time.monotonic() - last_answer_s > SILENT_S:
            self.lost = (f"dom0 ({self.where}) stopped answering: no answer since {clock(last_answer_s)} "
                         f"({time.monotonic() - last_answer_s:.0f} s)")
            raise TargetLost(self.lost)

    def reachable(self) -> bool:
        """False where the last run lost dom0 (its cleanup then skips dom0)."""
        return self.lost is None

    def before_run(self) -> None:
        """At a run's start: raise at once for a target set aside; check it, and restart a
        lost one (or set it aside)."""
        if self.set_aside is not None:
            raise TargetLost(f"dom0 ({self.where}) set aside for the rest of the campaign: {self.set_aside}")
        why = self.lost or self._check()
        if why is None:
            return
        if self.restarts >= MAX_RESTARTS or not self.host.restartable():
            self._decide("set aside", why if self.host.restartable() else
                         f"{why}; xtalk cannot restart a dom0 reached by executor {self.host.opts.executor!r}")
            raise TargetLost(f"dom0 ({self.where}) set aside for the rest of the campaign: {self.set_aside}")
        started = time.monotonic()
        try:
            self.host.restart()
        except InfrastructureError as err:
            self._decide("set aside", f"{why}; restarting it failed: {err}")
            raise TargetLost(f"dom0 ({self.where}) set aside for the rest of the campaign: {self.set_aside}") from err
        self.restarts += 1
        self.lost = None
        self._decide("restarted", f"{why}; restarted in {time.monotonic() - started:.0f} s")

    def _check(self) -> str | None:
        started = time.monotonic()
        try:
            answer = self.host.executor.run(["true"], timeout=CHECK_S, repeatable=True)
        except InfrastructureError as err:
            return f"dom0 ({self.where}) did not answer the check before the run at {clock(started)}: {err}"
        return None if answer.ok else f"dom0 ({self.where}) answered the check with status {answer.returncode}"

    def _decide(self, state: str, reason: str) -> None:
        if state == "set aside":
            self.set_aside = reason
        self.decisions.append({"state": state, "reason": reason,
                               "at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")})

    def taken(self) -> list[dict]:
        """The decisions since the last call (for the run that follows them)."""
        out, self.decisions = self.decisions, []
        return out
