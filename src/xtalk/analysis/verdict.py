"""Isolation verdicts: one per (configuration, metric), from the metric kind's primary
statistic (kinds.py), with the design that fits the runs: a configuration whose runs
switched a stressor on and off (timeline or [paired]) is judged by its own on- against
off-windows (paired.py); any other against its baseline configuration's runs
(effects.py), the run being the unit of evidence. Verdicts: baseline, interference,
no-interference, inconclusive (effects.VERDICTS); the spec's gates on the metric are
attached (they decide the overall PASS/FAIL, not the verdict).

Long-term stability per configuration (assessed for runs of at least LONG_RUN_S or
with a timeline): 'stable' when every run's last-fifth median is within DRIFT_PCT of its
first fifth and, with a timeline, the median after the last event is within DRIFT_PCT
of the one before the first; else 'drift'. These thresholds are xtalk's defaults.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import paired, windows
from .effects import LABELS, Rules, assess_runs, describe_change, run_sample, typical, unit_stats
from .kinds import MetricInfo, in_ns, metric_info, transform
from .wording import name_statistics, sentence

LONG_TERM = "long-term stability"
DRIFT_PCT = 5.0
LONG_RUN_S = 60.0
KPI_ORDER = ("kernel", "application", "memory", "io")


@dataclass
class Context:
    """What every verdict of one campaign needs."""

    streams: dict          # (run_id, metric) -> accum.Stream
    runs_of: dict          # config_id -> [run meta] (the runs analysed)
    events: dict           # run_id -> executed timeline events
    infos: dict            # metric -> kinds.MetricInfo
    deadlines: list
    rules: Rules
    settle_s: float | None
    rng: np.random.Generator

    @classmethod
    def of(cls, analysis) -> "Context":
        """The context of an Analysis (pipeline.py), for statistics of its runs after the fact."""
        runs_of: dict[str, list] = {}
        for r in analysis.used_runs:
            runs_of.setdefault(r["config_id"], []).append(r)
        spec = analysis.result.get("spec") or {}
        return cls(analysis.runs_streams, runs_of, analysis.events, analysis.infos, list(spec.get("deadlines") or []),
                   Rules.of(spec), (spec.get("paired") or {}).get("settle_s"), np.random.default_rng(0))

    def primary_values(self, cid: str, metric: str) -> list[float]:
        """The primary statistic of the metric's kind, one value per run of the configuration."""
        info = self.infos[metric]
        key = info.kind.primary.key
        return [u[key] for _, u in self.run_units(cid, info) if u[key] is not None]

    def run_units(self, cid: str, info: MetricInfo, ns: bool = False) -> list[tuple[str, dict]]:
        """(run id, every statistic of the kind) of each run of a configuration; `ns`:
        the ones counted in ticks converted to ns with the run's own counter frequency."""
        out = []
        for meta in self.runs_of.get(cid, []):
            s = self.streams.get((meta["run_id"], info.name))
            if s is not None and s.n:
                stats = unit_stats(run_sample(s, meta), info, self.deadlines)
                out.append((meta["run_id"], in_ns(stats, info, s.ns_per_tick) if ns else stats))
        return out

    def run_windows(self, cid: str, info: MetricInfo) -> list[list[tuple[dict, bool]]]:
        """Every statistic of each on/off window of each run of a configuration (paired.py)."""
        per_run = []
        for meta in self.runs_of.get(cid, []):
            s = self.streams.get((meta["run_id"], info.name))
            if s is not None and s.n:
                per_run.append(paired.run_windows(s, meta, self.events.get(meta["run_id"], []), info,
                                                  self.deadlines, self.settle_s))
        return per_run


def baseline_row(ctx: Context, cid: str, info: MetricInfo, ns: bool = False) -> dict:
    units = ctx.run_units(cid, info, ns)
    stat = info.kind.primary
    vals = [u[stat.key] for _, u in units if u[stat.key] is not None]
    _, scale = transform(vals, stat)
    return {"statistic": stat.key, "statistic_label": stat.label, "stat_unit": stat.unit, "verdict": "baseline",
            "value": typical(vals, scale), "units": [len(vals), len(vals)], "reason": "the reference configuration",
            "run_values": {r: u[stat.key] for r, u in units}}


def no_reference_row(info: MetricInfo, n: int, reason: str) -> dict:
    stat = info.kind.primary
    return {"statistic": stat.key, "statistic_label": stat.label, "stat_unit": stat.unit, "verdict": "inconclusive",
            "units": [n, 0], "reason": reason}


def runs_row(ctx: Context, cid: str, base: str, info: MetricInfo, labels: tuple[str, str, str] = LABELS,
             ns: bool = False) -> tuple[dict, list[dict]]:
    """A configuration's runs against its reference's runs: the primary statistic's
    assessment (with `labels` for its verdicts) and the secondary statistics' changes."""
    mine, ref = ctx.run_units(cid, info, ns), ctx.run_units(base, info, ns)
    kind = info.kind
    row = assess_runs(kind.primary, [u[kind.primary.key] for _, u in mine], [u[kind.primary.key] for _, u in ref],
                      ctx.rules, ctx.rng, labels)
    row["run_values"] = {r: u[kind.primary.key] for r, u in mine}
    extra = [describe_change(s, [u[s.key] for _, u in mine], [u[s.key] for _, u in ref]) for s in kind.secondary]
    return row, extra


def _paired_row(ctx: Context, cid: str, info: MetricInfo) -> tuple[dict, list[dict]]:
    per_run = ctx.run_windows(cid, info)
    kind = info.kind
    row = paired.assess(kind.primary, per_run, ctx.rules, ctx.rng)
    extra = [paired.assess(s, per_run, ctx.rules, ctx.rng, secondary=True) for s in kind.secondary]
    return row, extra


def metric_verdicts(ctx: Context, pooled: dict, baselines: dict, gates: list[dict]) -> list[dict]:
    """One row per (configuration, metric) of `pooled` ((config, metric) -> pooled Stream)."""
    out = []
    for (cid, metric), stream in pooled.items():
        info = ctx.infos.get(metric) or metric_info(metric, None)
        run_ids = [m["run_id"] for m in ctx.runs_of.get(cid, [])]
        base = baselines.get(cid)
        extra: list[dict] = []
        if windows.has_windows(ctx.events, run_ids):
            design, reference = "paired", "off-windows of the same runs"
            row, extra = _paired_row(ctx, cid, info)
        elif base == cid:
            design, reference = "runs", cid
            row = baseline_row(ctx, cid, info)
        elif base is None:
            design, reference = "none", None
            row = no_reference_row(info, len(run_ids), "no baseline configuration (placement=solo with the same "
                                                       "other dimensions)")
        else:
            design, reference = "runs", base
            row, extra = runs_row(ctx, cid, base, info)
        mine = [g for g in gates if g["config_id"] == cid and g["metric"] == metric]
        out.append(complete(ctx, row, extra, cid, info, stream.ns_per_tick, design, reference, cid, mine))
    return by_kpi(out)


def complete(ctx: Context, row: dict, extra: list[dict], cid: str, info: MetricInfo, ns_per_tick: float | None,
             design: str, reference: str | None, label: str, gates: list[dict] = ()) -> dict:
    """A verdict row with what every report shows of it: the configuration, the metric's
    kind and KPI class, the design and reference, the gates on it and its sentence."""
    unit_word = "windows" if design == "paired" else "runs"
    config = (ctx.runs_of.get(cid) or [{}])[0].get("config") or {}
    row.update(config_id=cid, config=config, metric=info.name, kind=info.kind.name, kind_declared=info.declared,
               kpi=info.kpi, kpi_label=info.kpi_label, better=info.kind.better, design=design, baseline=reference,
               unit_word=unit_word, metric_unit=info.unit, ns_per_tick=ns_per_tick, secondary=extra,
               gates=[f"{g['stat']} {'pass' if g['passed'] else 'FAIL'}: {g['detail']}" for g in gates])
    name_statistics([row, *extra], info.unit)
    row["sentence"] = sentence(label, info.name, row, extra, info.kind.better, ns_per_tick, info.unit, unit_word)
    return row


def by_kpi(rows: list[dict]) -> list[dict]:
    order = {k: i for i, k in enumerate(KPI_ORDER)}
    return sorted(rows, key=lambda v: order.get(v["kpi"], 99))


def long_term_verdicts(drifts: dict[str, list[dict]], timelines: dict[str, dict], assessed: bool = True,
                       metrics: dict[str, list[str]] | None = None) -> list[dict]:
    """One row per configuration (`metrics`: config -> its metrics); `assessed` false (runs
    shorter than LONG_RUN_S and no timeline): the rows say so."""
    out = []
    for cid, names in (metrics or {c: sorted({r["metric"] for r in rows}) for c, rows in drifts.items()}).items():
        rows = drifts.get(cid, [])
        if not assessed:
            out.append({"kpi": LONG_TERM, "metric": ", ".join(names), "config_id": cid, "verdict": "not assessed",
                        "gates": [], "evidence": f"runs shorter than {LONG_RUN_S:g} s and no timeline"})
            continue
        worst = max((abs(r["drift_pct"]) for r in rows if r and r.get("drift_pct") is not None), default=None)
        tl = timelines.get(cid)
        recovered = None
        if tl and len(tl["segments"]) > 1 and tl["segments"][-1]["change_pct"] is not None:
            recovered = tl["segments"][-1]["change_pct"]
        bad = (worst is not None and worst > DRIFT_PCT) or (recovered is not None and abs(recovered) > DRIFT_PCT)
        evidence = []
        if worst is not None:
            evidence.append(f"largest drift first-to-last fifth of a run {worst:.2f}%")
        if recovered is not None:
            evidence.append(f"after the timeline vs before: {recovered:+.2f}%")
        out.append({"kpi": LONG_TERM, "metric": ", ".join(names), "config_id": cid, "verdict": "no data" if worst is None and recovered is None
                    else "drift" if bad else "stable", "gates": [],
                    "evidence": "; ".join(evidence) + f" (threshold {DRIFT_PCT:g}%)"})
    return out


def overall(gates: list[dict], defined: int = 0) -> str:
    """FAIL / PASS from the gate results; NO GATES without gates in the spec; NOT EVALUATED
    when the spec has gates but no configuration they apply to (only the baseline ran)."""
    if not gates:
        return "NOT EVALUATED" if defined else "NO GATES"
    return "FAIL" if any(not g["passed"] for g in gates) else "PASS"
