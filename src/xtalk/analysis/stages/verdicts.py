"""Stages of the verdicts: the spec's KPI gates (gates.py), each configuration against its
baseline (verdict.metric_verdicts), against bare metal (overhead.py) and across boards
(boards.py), and the campaign's overall outcome."""
from __future__ import annotations

from ...spec.model import Gate
from .. import measurability, verdict
from ..boards import board_rows
from ..gates import evaluate
from ..overhead import overhead_rows
from ..result import Rows
from . import Pass, stage


def gate_models(spec: dict) -> list[Gate]:
    """The spec's gates; one a spec stored by an older xtalk no longer reads is left out."""
    out = []
    for g in spec.get("gates") or []:
        try:
            out.append(Gate(**g))
        except Exception:  # noqa: BLE001 - a spec stored by an older xtalk; reported, not fatal
            pass
    return out


@stage("gates", 110, Rows)
def gates(p: Pass) -> Rows:
    models = gate_models(p.spec)
    return evaluate(models, p.per_config, p.configs) if models else []


@stage("verdicts", 120, Rows)
def verdicts(p: Pass) -> Rows:
    return measurability.word_undecided(verdict.metric_verdicts(p.ctx, p.pooled, p.baselines, p.result["gates"]),
                                        p.result["measurability"])


@stage("overhead", 130, Rows)
def overhead(p: Pass) -> Rows:
    return overhead_rows(p.ctx, p.pooled, p.configs)


@stage("boards", 140, Rows)
def boards(p: Pass) -> Rows:
    return board_rows(p.ctx, p.pooled, p.configs)


@stage("overall", 180, str)
def overall(p: Pass) -> str:
    """PASS, FAIL, NO GATES, NOT EVALUATED."""
    return verdict.overall(p.result["gates"], len(gate_models(p.spec)))
