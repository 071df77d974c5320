"""Stages of what the report doubts: runs left out of the statistics, warnings (stability.py:
runs, data, paired windows against the real-time throttle, the ramp-up excluded) and the
host's noise flags."""
from __future__ import annotations

from .. import stability
from ..result import Rows
from . import Pass, stage


@stage("left_out", 190, Rows)
def left_out(p: Pass) -> Rows:
    """Runs whose files cannot be read, or that did not pass."""
    return p.left_out


@stage("warnings", 200, Rows)
def warnings(p: Pass) -> Rows:
    """level, scope, message."""
    out = (p.left_out_warnings + stability.run_warnings(p.runs, p.events)
           + stability.data_warnings(p.per_config, p.per_run, p.runs)
           + stability.paired_throttle_warnings(p.info.get("host"), p.runs, p.spec.get("paired")))
    if p.skipped:
        out.append({"level": "info", "scope": "campaign", "message": "ramp-up excluded: " + ", ".join(
            f"{r}/{m}: first {n} samples" for (r, m), n in sorted(p.skipped.items()))})
    return out


@stage("noise_flags", 210, list[str])
def noise_flags(p: Pass) -> list[str]:
    return stability.noise_flags(p.info.get("host") or {}, p.runs)
