"""The analysis result: what `analyze` computes for one campaign, as plain JSON data
(report.json holds it as it is; `xtalk compare`, `calibrate` and the plots read it).

`stages.contract()` is its contract: every key, in report.json's order, with its type. The
header (`Result`: campaign, host, options, units, spec, runs, configs, baselines, study)
describes the campaign; the other keys are the stages' (analysis/stages/), each rendered
by a section of the report (xtalk.report.sections). Rows are dicts whose keys are told
where they are made (describe.stats_rows, verdict.metric_verdicts, outliers, evt, ...).

Caveat: a TypedDict checks nothing at run time (the tests check every output against it:
tests/framework/result_contract.py); `clean` makes the data JSON-able
(numpy scalars converted, NaN and infinities as null).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
from typing_extensions import TypedDict  # pydantic can check this one (tests/framework/result_contract.py)

Rows = list[dict[str, Any]]

RUN_KEYS = ("run_id", "config_id", "status", "reason", "warmup", "repetition", "sample_count", "lost_samples",
            "ring_lost_samples", "freq_hz", "started_at", "duration_s", "placement", "start_order", "measurer",
            "stressors", "stressors_watch", "pressure", "caches", "sizes", "instrument")  # of each run's meta.json, in `runs`


class Result(TypedDict):
    """The header of a result: the campaign as stored. The computed keys that follow are the
    stages' (analysis/stages/), each with its type (stages.contract)."""

    campaign: dict[str, Any]      # id, name, created_at, xtalk_version, schema_version, spec_hash, planned_runs, fleet,
    #                               targets
    description: str
    path: str
    host: dict[str, Any]          # campaign.json host facts
    options: dict[str, bool]      # include_warmup, exclude_rampup
    units: dict[str, str]         # metric -> unit (cycles, ns, count...)
    spec: dict[str, Any]
    runs: Rows                    # RUN_KEYS of every final run, its accelerator, board and noisy CPUs
    configs: dict[str, dict]      # config id -> dimension values
    baselines: dict[str, str | None]  # config id -> its baseline's id
    study: dict[str, Any] | None  # campaign.json `study`: a channel study's or a search's plan (interference/, search/)


def run_row(meta: dict) -> dict:
    """What the result keeps of one run's meta.json."""
    noise = meta.get("noise") or {}
    return {**{k: meta.get(k) for k in RUN_KEYS}, "accel": (meta.get("backend_metadata") or {}).get("accel"),
            "board": (meta.get("fleet") or {}).get("place"),
            "noisy_cpus": {str(c): noise["cpus"][c]["foreign_pct"] for c in noise.get("noisy_cpus") or []}
            if "cpus" in noise else None}


def clean(o):
    """Plain JSON data: numpy scalars/arrays converted, NaN and infinities as null."""
    if isinstance(o, dict):
        return {str(k): clean(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [clean(v) for v in o]
    if isinstance(o, np.ndarray):
        return clean(o.tolist())
    if isinstance(o, (bool, np.bool_)):
        return bool(o)
    if isinstance(o, (int, np.integer)):
        return int(o)
    if isinstance(o, (float, np.floating)):
        return float(o) if math.isfinite(o) else None
    return o
