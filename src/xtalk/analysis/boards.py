"""Boards against each other in a per-board fleet campaign (the `board` dimension,
xtalk.fleet.campaign): each configuration on a board against the same configuration on
the reference board (the first board of the plan), per metric, with the engine of the
overhead rows (overhead.against_rows: the run is the unit, the reference board's runs
give the noise floor, times in ns with each run's own counter frequency). Verdicts:
`different`, `no-difference`, `inconclusive` (as `xtalk compare CAMPAIGN@A CAMPAIGN@B`);
the reference board's configurations are the `baseline`.
"""
from __future__ import annotations

from .comparison import LABELS
from .overhead import against_rows
from .verdict import Context

BOARD_DIM = "board"


def reference_board(configs: dict[str, dict]) -> str | None:
    """The first board of the plan (configurations keep the plan's order), None without boards."""
    return next((str(c[BOARD_DIM]) for c in configs.values() if BOARD_DIM in c), None)


def board_rows(ctx: Context, pooled: dict, configs: dict[str, dict]) -> list[dict]:
    reference = reference_board(configs)
    if reference is None:
        return []
    return against_rows(ctx, pooled, configs, BOARD_DIM, reference, LABELS, BOARD_DIM)
