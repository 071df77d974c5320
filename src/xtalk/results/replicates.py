"""Replicate campaigns: the stored campaigns of the same spec on the same host as given
ones. `xtalk compare` measures the drift between campaigns from them (analysis/levels.py)
when a side has a single campaign: the user who ran the spec before on this host has
already measured how much it moves from one campaign to the next.

Same spec: campaign.json's `spec` (after --set) is equal; same host: its hostname and CPU
model are. Only the MAX_REPLICATES most recent are taken (each costs a scan). Caveat: a
campaign stopped early is still a replicate; its configurations without passing runs
simply do not count. Per-board fleet views (CAMPAIGN@PLACE) have no replicates here: the
host recorded is the controller's, not the board's.
"""
from __future__ import annotations

import json
from pathlib import Path

from .store import BoardStore, CampaignStore, catalog

MAX_REPLICATES = 12


def setup_key(info: dict) -> tuple[str, str, str]:
    host = info.get("host") or {}
    return (json.dumps(info.get("spec") or {}, sort_keys=True, default=str), str(host.get("hostname")),
            str(host.get("cpu_model")))


def replicates(of: list[CampaignStore], exclude: list[CampaignStore], where: list[Path]) -> list[CampaignStore]:
    """Stored campaigns in the directories `where` with the spec and host of a campaign of
    `of`, other than those of `exclude` (the campaigns compared), oldest first."""
    if any(isinstance(s, BoardStore) for s in of):
        return []
    keys = {setup_key(s.info) for s in of}
    taken = {s.path.resolve() for s in exclude}
    found: dict[Path, CampaignStore] = {}
    for directory in dict.fromkeys(p.resolve() for p in where):
        for store in catalog(directory)[0]:
            path = store.path.resolve()
            if path not in taken and setup_key(store.info) in keys:
                found.setdefault(path, store)
    return sorted(found.values(), key=lambda s: s.info.get("created_at", ""))[-MAX_REPLICATES:]
