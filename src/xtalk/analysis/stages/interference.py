"""The stage of a channel study's (or a search confirmation's) interference channels:
per channel and placement its multiplier, or why it was not tested (analysis/interference.py)."""
from __future__ import annotations

from ..interference import channel_rows
from ..result import Rows
from . import Pass, stage


@stage("channels", 150, Rows)
def channels(p: Pass) -> Rows:
    return channel_rows(p.info.get("study"), p.result["verdicts"], p.run_rows)
