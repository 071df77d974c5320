"""A campaign's decisions about targets that stopped answering, as doubts of the report:
a fleet's boards (campaign.json `fleet.boards`, fleet/decisions.py) and a backend's dom0
(`targets`, backends/xen/target.py). Those set aside (down or suspect, or a dom0: an
error, their remaining runs went to other boards or failed at once) and those restarted
after they stopped answering (a warning: a target that stopped during a run cost that
run, stored as 'error'), each decision with its time and reason. `xtalk show`,
report.html and report.md show them with the other doubts; report.json has them under
`campaign.fleet.boards` and `campaign.targets`.
"""
from __future__ import annotations

import datetime as dt

from .answer import Doubt

HOW = {"restarted": "restarted", "down": "set aside (down)", "suspect": "set aside (suspect)",
       "set aside": "set aside"}


def _when(iso: str) -> str:
    """campaign.json's ISO 8601 time as '2025-03-01 14:05:09 UTC' (as it is, if it does not read)."""
    try:
        return dt.datetime.fromisoformat(iso).astimezone(dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    except ValueError:
        return iso


def board_doubts(res: dict) -> list[Doubt]:
    """The boards and dom0s set aside, then those restarted: one item per decision, oldest
    first."""
    boards = ((res["campaign"].get("fleet") or {}).get("boards")) or {}
    targets = res["campaign"].get("targets") or {}
    aside = Doubt("targets set aside: no more runs went to them", "error")
    restarted = Doubt("targets restarted after they stopped answering", "warning")
    for place, decisions in sorted(boards.items()) + sorted(targets.items()):
        for d in decisions:
            group = restarted if d["state"] == "restarted" else aside
            group.items.append(f"{place}: {HOW.get(d['state'], d['state'])} at {_when(d['at'])}: {d['reason']}")
            group.scopes.add(place)
    return [g for g in (aside, restarted) if g.items]
