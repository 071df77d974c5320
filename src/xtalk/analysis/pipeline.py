"""Everything the report says about one campaign: `analyze(store)` loads the campaign
once (`load`: run records, timeline events, the index of damaged runs), then computes
(`compute`): one streaming pass over the samples (two with --exclude-rampup: the
ramp-up is detected, then skipped), then the stages of analysis/stages/ (statistics,
verdicts, studies, warnings), each one key of the result.

It returns an Analysis: `.result` is the Result (analysis/result.py: plain JSON-able
data, what report.json holds), `.runs_streams` / `.pooled` keep the accumulators the
plots draw from. Statistics use passing runs only (and no warm-up samples or warm-up
runs unless include_warmup); the others are listed in the warnings, never silently dropped.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..results.store import CampaignStore, RunIndex
from . import changepoints, verdict
from .describe import stats_rows
from .effects import Rules
from .gates import baseline_dim, baseline_of
from .kinds import metrics_of
from .result import Result, clean, run_row
from .scan import scan, timeline_events
from .stages import Pass, stages

@dataclass
class Options:
    include_warmup: bool = False
    exclude_rampup: bool = False
    threads: int | None = None
    seed: int = 0
    evt: bool = True
    extras: bool = True  # ramp-up, timelines, drift, outliers, warnings: what only the report shows


@dataclass
class Loaded:
    """What the store gives for one campaign, read before any computing."""
    path: Path
    info: dict                          # campaign.json
    index: RunIndex                     # every attempt of every run, the damaged ones apart
    runs: list[dict]                    # meta of the final attempts, in plan order
    events: dict[str, list[dict]]       # run_id -> timeline events


@dataclass
class Analysis:
    store_path: str
    options: Options
    result: Result
    runs_streams: dict   # (run_id, metric) -> Stream
    pooled: dict         # (config_id, metric) -> Stream
    events: dict         # run_id -> timeline events
    used_runs: list      # meta of the runs the statistics use
    infos: dict          # metric -> kinds.MetricInfo
    sample_files: list   # the samples.parquet of every final attempt (the report's export), read once

    def units(self) -> dict[str, str]:
        return self.result.get("units", {})


def _units(runs: list[dict]) -> dict[str, str]:
    out = {}
    for r in runs:
        for m in (r.get("metrics") or {}).values():
            out.setdefault(m.get("name"), m.get("unit") or "cycles")
    return out


def load(store: CampaignStore) -> Loaded:
    """Everything the analysis reads from the store but the samples: read once, first."""
    index = store.index()
    runs = index.final()
    events = {r["run_id"]: timeline_events(store.run_dir(r["run_id"]), r.get("origin_host_ns")) for r in runs}
    return Loaded(store.path, store.info, index, runs, events)


def analyze(store: CampaignStore, options: Options | None = None) -> Analysis:
    return compute(load(store), options or Options())


def compute(c: Loaded, opt: Options) -> Analysis:
    """The analysis of a loaded campaign: one pass over the samples (a second one skips
    the detected ramp-ups with --exclude-rampup), then the stages (analysis/stages/), in
    order, each computing its key of the result."""
    info, runs, events = c.info, c.runs, c.events
    spec = info.get("spec") or {}
    used = [r for r in runs if r.get("status") == "pass" and (opt.include_warmup or not r.get("warmup"))]
    deadlines = list(spec.get("deadlines") or [])
    unreadable: dict = {}
    streams = scan(c.path, used, events, deadlines, opt.include_warmup, threads=opt.threads, unreadable=unreadable)
    used = [r for r in used if r["run_id"] not in unreadable]
    left_out, left_out_warnings = c.index.left_out(c.path, unreadable, used)
    configs_of = {r["run_id"]: r.get("config_id", "?") for r in used}
    units = _units(runs)
    per_run, per_config, pooled = stats_rows(streams, configs_of, units)
    medians = {(r["run_id"], r["metric"]): r.get("median") for r in per_run}
    ramp = [changepoints.rampup(s, medians[k]) for k, s in streams.items() if s.n] if opt.extras or opt.exclude_rampup else []
    skipped = {}
    if opt.exclude_rampup:
        skipped = {(r["run_id"], r["metric"]): r["warmup_n"] for r in ramp if r["significant"]}
        if skipped:
            streams = scan(c.path, used, events, deadlines, opt.include_warmup, skip=skipped, threads=opt.threads)
            per_run, per_config, pooled = stats_rows(streams, configs_of, units)

    all_configs = {}
    for r in runs:
        all_configs.setdefault(r.get("config_id", "?"), r.get("config") or {})
    dim, value = baseline_dim(spec)
    baselines = {cid: baseline_of(cfg, all_configs, dim, value) for cid, cfg in all_configs.items()}
    by_config: dict[tuple[str, str], list] = {}
    for (rid, metric), s in streams.items():
        by_config.setdefault((configs_of[rid], metric), []).append(s)
    rules = Rules.of(spec)
    runs_of: dict[str, list[dict]] = {}
    for r in used:
        runs_of.setdefault(r.get("config_id", "?"), []).append(r)
    ctx = verdict.Context(streams, runs_of, events, metrics_of(runs), deadlines, rules,
                          (spec.get("paired") or {}).get("settle_s"), np.random.default_rng(opt.seed))
    run_rows = [run_row(r) for r in runs]
    state = Pass(c.path, info, spec, opt, runs, run_rows, used, events, deadlines, units, streams, pooled, by_config,
                 per_run, per_config, ramp, skipped, all_configs, baselines, rules, ctx, left_out, left_out_warnings)
    for stage in stages():
        skip = (stage.needs == "extras" and not opt.extras) or (stage.needs == "evt" and not opt.evt)
        state.result[stage.key] = stage.empty if skip else stage(state)
    result = {
        "campaign": {k: info.get(k) for k in ("id", "name", "created_at", "xtalk_version", "schema_version",
                                              "spec_hash", "planned_runs", "fleet", "targets")},
        "description": spec.get("description", ""), "path": str(c.path), "host": info.get("host") or {},
        "options": {"include_warmup": opt.include_warmup, "exclude_rampup": opt.exclude_rampup},
        "units": units, "spec": spec, "runs": run_rows, "configs": all_configs, "baselines": baselines,
        "study": info.get("study"), **state.result}
    return Analysis(str(c.path), opt, clean(result), streams, pooled, events, used, ctx.infos,
                    c.index.sample_files())
