"""The stage of whether the machine could answer at all (analysis/measurability.py): before
the verdicts, which word their undecided rows by it."""
from __future__ import annotations

from typing import Any

from .. import measurability
from . import Pass, stage


@stage("measurability", 115, dict[str, Any])
def measurable(p: Pass) -> dict[str, Any]:
    units = measurability.reference_units(p.ctx, p.per_run, p.baselines)
    return measurability.assess(p.info.get("host") or {}, p.runs, units, p.result["deadlines"], p.baselines, p.rules)
