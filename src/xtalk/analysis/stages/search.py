"""The stage of a worst-case search's confirmation: the neighbour found against the best
channel default (analysis/search.py)."""
from __future__ import annotations

from typing import Any

from ..search import search_outcome
from . import Pass, stage


@stage("search", 160, dict[str, Any] | None)
def search(p: Pass) -> dict[str, Any] | None:
    return search_outcome(p.info.get("study"), p.result["channels"], p.ctx)
