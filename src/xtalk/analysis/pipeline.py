"""Everything the report says about one campaign: `analyze(store)` loads the campaign
once (`load`: run records, timeline events, the index of damaged runs), then computes
(`compute`): one streaming pass over the samples (two with --exclude-rampup: the
ramp-up is detected, then skipped), statistics, verdicts, warnings.

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
from ..spec.model import Gate
from . import changepoints
from . import outliers, stability, verdict
from .describe import stats_rows
from .gates import baseline_dim, baseline_of, evaluate
from .effects import Rules
from .inference import POWER
from .kinds import metric_info, metrics_of
from .boards import board_rows
from .interference import channel_rows
from .search import search_outcome
from .overhead import overhead_rows
from .result import Result, clean, run_row
from .scan import scan, timeline_events


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
    the detected ramp-ups with --exclude-rampup), then statistics, verdicts, warnings."""
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
    stats = {(r["config_id"], r["metric"]): r for r in per_config}

    all_configs = {}
    for r in runs:
        all_configs.setdefault(r.get("config_id", "?"), r.get("config") or {})
    raw_gates = list(spec.get("gates") or [])
    dim, value = baseline_dim(spec)
    baselines = {cid: baseline_of(cfg, all_configs, dim, value) for cid, cfg in all_configs.items()}

    by_config: dict[tuple[str, str], list] = {}
    for (rid, metric), s in streams.items():
        by_config.setdefault((configs_of[rid], metric), []).append(s)
    timelines, drifts = {}, {}
    paired_spec = spec.get("paired") or {}
    for (cid, metric), group in by_config.items() if opt.extras else ():
        tl = None if paired_spec else changepoints.timeline(group, events, units.get(metric, "cycles"))
        if tl:
            timelines[f"{cid}/{metric}"] = dict(config_id=cid, metric=metric, **tl)
        for s in group:
            d = changepoints.drift(s)
            if d:
                drifts.setdefault(cid, []).append(dict(metric=metric, **d))

    evts = {}
    if opt.evt:
        from . import evt
        infos = metrics_of(runs)
        for (cid, metric), s in pooled.items():
            what = infos.get(metric) or metric_info(metric, {"unit": units.get(metric)})
            evts[f"{cid}/{metric}"] = dict(config_id=cid, metric=metric, ns_per_tick=s.ns_per_tick,
                                           **evt.pwcet(s, by_config[(cid, metric)], what))

    gate_models = []
    for g in raw_gates:
        try:
            gate_models.append(Gate(**g))
        except Exception:  # noqa: BLE001 - a spec stored by an older xtalk; reported, not fatal
            pass
    gates = evaluate(gate_models, per_config, all_configs) if gate_models else []

    rules = Rules.of(spec)
    runs_of: dict[str, list[dict]] = {}
    for r in used:
        runs_of.setdefault(r.get("config_id", "?"), []).append(r)
    ctx = verdict.Context(streams, runs_of, events, metrics_of(runs), deadlines, rules,
                          paired_spec.get("settle_s"), np.random.default_rng(opt.seed))
    verdicts = verdict.metric_verdicts(ctx, pooled, baselines, gates)
    overhead = overhead_rows(ctx, pooled, all_configs)
    boards = board_rows(ctx, pooled, all_configs)
    long_runs = any(float(r.get("duration_s") or 0) >= verdict.LONG_RUN_S for r in used) or bool(timelines)
    metrics_by_config: dict[str, list[str]] = {}
    for r in per_config:
        metrics_by_config.setdefault(r["config_id"], []).append(r["metric"])
    stable = verdict.long_term_verdicts(drifts, {t["config_id"]: t for t in timelines.values()}, long_runs,
                                        metrics_by_config) if opt.extras else []
    warnings = (left_out_warnings + stability.run_warnings(runs, events)
                + stability.data_warnings(per_config, per_run, runs))
    if skipped:
        warnings.append({"level": "info", "scope": "campaign", "message": "ramp-up excluded: " + ", ".join(
            f"{r}/{m}: first {n} samples" for (r, m), n in sorted(skipped.items()))})

    run_rows = [run_row(r) for r in runs]
    channels = channel_rows(info.get("study"), verdicts, run_rows)
    result = Result(
        campaign={k: info.get(k) for k in ("id", "name", "created_at", "xtalk_version", "schema_version",
                                           "spec_hash", "planned_runs")},
        description=spec.get("description", ""), path=str(c.path), host=info.get("host") or {},
        options={"include_warmup": opt.include_warmup, "exclude_rampup": opt.exclude_rampup},
        units=units, spec=spec, runs=run_rows, configs=all_configs, baselines=baselines, study=info.get("study"),
        stats_runs=per_run, stats=per_config,
        analysis={"alpha": rules.alpha, "power": POWER, "negligible_pct": rules.negligible_pct,
                  "negligible_points": rules.negligible_points, "paired": paired_spec or None},
        deadlines=outliers.deadline_rows(pooled, stats, deadlines),
        outliers=outliers.outlier_rows(pooled, stats) if opt.extras else [],
        rampup=ramp, rampup_excluded={f"{r}/{m}": n for (r, m), n in skipped.items()},
        timelines=list(timelines.values()), drift=drifts, evt=list(evts.values()),
        gates=gates, verdicts=verdicts, channels=channels,
        search=search_outcome(info.get("study"), channels, ctx),
        overhead=overhead, boards=boards, stability=stable,
        overall=verdict.overall(gates, len(gate_models)),
        left_out=left_out, warnings=warnings, noise_flags=stability.noise_flags(info.get("host") or {}, runs),
    )
    return Analysis(str(c.path), opt, clean(result), streams, pooled, events, used, ctx.infos,
                    c.index.sample_files())
