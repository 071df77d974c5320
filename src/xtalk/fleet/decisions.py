"""What a fleet campaign does with a board that failed it, and the record of each decision.

A board that stops answering (boards.BoardDown: during its run, which is lost, or at the
health check before a run) is power-cycled through its place's power resource (labgrid's
power driver; it must answer ssh within boot_timeout_s) and given runs again:
`restarted`. It is set aside for the rest of the session (`down`) when it stops answering
a second time, when its place has no power resource, or when its power cycle fails. A
suspect board (boards.BoardSuspect: it sent back a run xtalk does not take) is set aside
at once and never restarted (`suspect`): what it sends cannot be trusted.

Each decision is written to campaign.json the moment it is made (`fleet.boards`: per
place, its decisions oldest first, each with the reason, when it was made and the board's
last sign of life), so a campaign killed afterwards keeps it. A --resume gives every
board runs again (a board set aside may have been mended since): the earlier decisions
stay in the list, and a board's first stop in the new session restarts it again.
Caveat: a restart waits up to the kind's boot_timeout_s; Ctrl-C meanwhile waits for it.
"""
from __future__ import annotations

import datetime as dt
import threading
from typing import NoReturn

from ..results.store import CampaignStore, now_iso
from .boards import Board, BoardDown, BoardSuspect
from .progress import FleetProgress

ENOUGH = "no more runs go to it in this session"


class SetAside(Exception):
    """The board gets no more runs in this session: `state` (down, suspect) and why."""

    def __init__(self, state: str, reason: str):
        super().__init__(reason)
        self.state, self.reason = state, reason


def fleet_record(store: CampaignStore | None, mode: str) -> dict:
    """campaign.json's `fleet` for a campaign in `mode`: on --resume, the resumed
    campaign's own (its decisions about boards kept) when it was run in that mode."""
    earlier = (store.info.get("fleet") or {}) if store is not None else {}
    return dict(earlier, mode=mode) if earlier.get("mode") == mode else {"mode": mode}


def _iso(t: float) -> str:
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).isoformat(timespec="milliseconds")


class BoardDecisions:
    def __init__(self, store: CampaignStore, progress: FleetProgress):
        self.store, self.progress = store, progress
        self.restarted: set[str] = set()  # the boards restarted in this session
        self.lock = threading.Lock()

    def after(self, board: Board, err: BoardDown) -> None:
        """Restart `board`, which failed with `err`, or raise SetAside."""
        name = board.place.name
        if isinstance(err, BoardSuspect):
            self._set_aside(name, "suspect", str(err), None)
        if name in self.restarted:
            self._set_aside(name, "down", f"{err}; it was restarted once already: {ENOUGH}", err.since)
        if board.power_resource() is None:
            self._set_aside(name, "down", f"{err}; its place has no power resource to restart it: {ENOUGH}",
                            err.since)
        self.restarted.add(name)
        self.progress.state(name, "restarting: power cycle")
        try:
            board.power_cycle()
        except BoardDown as again:
            told = str(again).removeprefix(f"board {name} ")
            self._set_aside(name, "down", f"{err}; restarting it failed: it {told}: {ENOUGH}", err.since)
        self._record(name, "restarted", str(err), err.since)
        self.progress.restarted(name)

    def _set_aside(self, name: str, state: str, reason: str, since: float | None) -> NoReturn:
        self._record(name, state, reason, since)
        raise SetAside(state, reason)

    def _record(self, name: str, state: str, reason: str, since: float | None) -> None:
        decision = {"state": state, "reason": reason, "at": now_iso()} | ({"since": _iso(since)} if since else {})
        with self.lock:
            fleet = dict(self.store.info.get("fleet") or {})
            boards = dict(fleet.get("boards") or {})
            boards[name] = [*boards.get(name, []), decision]
            self.store.update_info(fleet=dict(fleet, boards=boards))
