"""The analysis as a table of stages: each stage computes one key of a campaign's result
(report.json) from the pass over its samples (Pass) and the stages before it.

A stage is a function registered with `@stage(key, order, type)` in a module of this
package (or of an installed distribution's entry point group `xtalk.analysis.stages`), as
the plug-ins are found (xtalk.plugins): a new study is one module here, one section of the
report (xtalk.report.sections) and one command (xtalk.cli), and no list names it. `order`
places its key in the result (report.json's order) and decides which stages it may read
(`p.result`: those of a lower order); `type` is its key's type in the result's contract
(`contract`); `needs` the Options flag without which it is skipped
("extras", "evt": `show` and `run` skip those for speed; its key is then empty).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, get_type_hints

from typing_extensions import TypedDict

from ...plugins import Plugins
from ..accum import Stream
from ..effects import Rules
from ..result import Result
from ..verdict import Context

STAGES = Plugins("analysis stage", __name__, key="key")


def stage(key: str, order: int, type: Any, needs: str | None = None, empty: Any = None) -> Callable:
    """Register the decorated function(p: Pass) as the stage that computes `key`; `empty`:
    the key's value when the options skip it (`needs`)."""
    def register(compute: Callable) -> Callable:
        compute.key, compute.order, compute.type, compute.needs, compute.empty = key, order, type, needs, empty
        return STAGES.register(compute)
    return register


def stages() -> list[Callable]:
    """Every stage, in the result's order."""
    return sorted(STAGES.by_name().values(), key=lambda s: s.order)


def contract() -> type:
    """The whole result as a TypedDict: its header (result.Result), then every stage's key
    with its type."""
    return TypedDict("Result", {**get_type_hints(Result), **{s.key: s.type for s in stages()}})


@dataclass
class Pass:
    """What the pass over a campaign's samples gives every stage (pipeline.compute)."""

    path: Path
    info: dict                              # campaign.json
    spec: dict
    options: Any                            # pipeline.Options
    runs: list[dict]                        # meta of every final run
    run_rows: list[dict]                    # result.run_row of each
    used: list[dict]                        # the runs the statistics use
    events: dict[str, list[dict]]           # run_id -> timeline events
    deadlines: list[dict]
    units: dict[str, str]                   # metric -> unit
    streams: dict[tuple[str, str], Stream]  # (run_id, metric)
    pooled: dict[tuple[str, str], Stream]   # (config_id, metric)
    by_config: dict[tuple[str, str], list[Stream]]
    per_run: list[dict]                     # describe.stats_rows
    per_config: list[dict]
    ramp: list[dict]                        # changepoints.rampup of each stream (extras or --exclude-rampup)
    skipped: dict[tuple[str, str], int]     # (run_id, metric) -> ramp-up samples skipped
    configs: dict[str, dict]                # config id -> dimension values
    baselines: dict[str, str | None]
    rules: Rules
    ctx: Context
    left_out: list[dict]
    left_out_warnings: list[dict]
    result: dict[str, Any] = field(default_factory=dict)  # the stages' keys so far

    @property
    def stats(self) -> dict[tuple[str, str], dict]:
        return {(r["config_id"], r["metric"]): r for r in self.per_config}

    @property
    def paired(self) -> dict:
        return self.spec.get("paired") or {}
