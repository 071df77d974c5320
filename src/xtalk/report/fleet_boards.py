"""A fleet campaign's decisions about its boards (campaign.json `fleet.boards`, made by
fleet/decisions.py) as doubts of the report: the boards set aside (down or suspect: an
error, their remaining runs went to other boards or were not run) and the boards
restarted after they stopped answering (a warning: a board that stopped during a run
cost that run, stored as 'error'), each
decision with its time and reason. `xtalk show`, report.html and report.md show them
with the other doubts; report.json has them under `campaign.fleet.boards`.
"""
from __future__ import annotations

import datetime as dt

from .answer import Doubt

HOW = {"restarted": "restarted", "down": "set aside (down)", "suspect": "set aside (suspect)"}


def _when(iso: str) -> str:
    """campaign.json's ISO 8601 time as '2025-03-01 14:05:09 UTC' (as it is, if it does not read)."""
    try:
        return dt.datetime.fromisoformat(iso).astimezone(dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    except ValueError:
        return iso


def board_doubts(res: dict) -> list[Doubt]:
    """The boards set aside, then those restarted: one item per decision, oldest first."""
    boards = ((res["campaign"].get("fleet") or {}).get("boards")) or {}
    aside = Doubt("fleet boards set aside: no more runs went to them", "error")
    restarted = Doubt("fleet boards restarted after they stopped answering", "warning")
    for place, decisions in sorted(boards.items()):
        for d in decisions:
            group = restarted if d["state"] == "restarted" else aside
            group.items.append(f"{place}: {HOW.get(d['state'], d['state'])} at {_when(d['at'])}: {d['reason']}")
            group.scopes.add(place)
    return [g for g in (aside, restarted) if g.items]
