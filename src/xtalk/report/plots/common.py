"""What every plot shares: the campaign's data in one Context, values in the unit a person
thinks in (ns, µs, ms or s, chosen per metric from its median; counts stay counts), the
log scale for heavy-tailed kinds (gaps, latencies), stressor activity spans, the PNG
output and each axis's metadata (label, unit, scale) for the tests.
matplotlib's object API (Agg, no pyplot state, no display).
"""
from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # matplotlib (~0.45 s to import) only where a plot is drawn: `report --no-plots` draws none
    from matplotlib.figure import Figure

from ...analysis.kinds import metric_info
from ...analysis.wording import in_ticks

COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf")
DPI = 90
HEAVY_TAILED = ("gap", "latency")
TIME_UNITS = (("s", 1e9), ("ms", 1e6), ("µs", 1e3), ("ns", 1.0))


def png(fig: Figure) -> bytes:
    """The figure as PNG bytes. A figure with a layout engine (constrained: every plot here)
    already fits its legends and labels: cropping it to its tight box as well drew it twice
    for 10 px of margin (a report's plots 6.1 s -> 4.6 s); one without is cropped."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, bbox_inches=None if fig.get_layout_engine() else "tight")
    return buf.getvalue()


@dataclass
class Plot:
    id: str
    title: str
    fig: Figure
    metric: str | None = None
    section: str = "plots"  # where report.html shows it: "answer" (first screen) or "plots"

    def as_dict(self) -> dict:
        axes = [{"x": ax.get_xlabel(), "y": ax.get_ylabel(), "xscale": ax.get_xscale(), "yscale": ax.get_yscale(),
                 "title": ax.get_title()} for ax in self.fig.axes if ax.get_visible() and ax.has_data()]
        return {"id": self.id, "title": self.title, "png": png(self.fig), "axes": axes, "metric": self.metric,
                "section": self.section}


def change_numbers(v: dict) -> tuple[float | None, list | None, float | None, str]:
    """A verdict's change, 95% interval and noise floor, with their unit: percentage
    points for shares (stolen time), % for everything else."""
    if v.get("stat_unit") in ("share", "fraction") and v.get("change") is not None:
        ci = [c * 100 for c in v["ci95"]] if v.get("ci95") else None
        floor = v["noise_floor"] * 100 if v.get("noise_floor") is not None else None
        return v["change"] * 100, ci, floor, "points"
    return v.get("change_pct"), v.get("ci95_pct"), v.get("noise_floor_pct"), "%"


@dataclass(frozen=True)
class Unit:
    """How a metric's counter ticks are shown: `name` (µs, ms, ..., or the metric's own
    unit for counts) and `per_tick` (unit per tick)."""
    name: str
    per_tick: float

    def of(self, ticks):
        return np.asarray(ticks, dtype=np.float64) * self.per_tick


@dataclass
class Context:
    res: dict
    streams: dict                 # (run_id, metric) -> Stream
    pooled: dict                  # (config_id, metric) -> Stream
    events: dict                  # run_id -> executed timeline events
    meta: dict                    # run_id -> run metadata
    infos: dict = field(default_factory=dict)

    @classmethod
    def of(cls, analysis) -> "Context":
        return cls(analysis.result, analysis.runs_streams, analysis.pooled, analysis.events,
                   {m["run_id"]: m for m in analysis.used_runs}, analysis.infos)

    def metrics(self) -> list[str]:
        return sorted({m for (_, m), s in self.pooled.items() if s.n})

    def configs(self, metric: str) -> list[str]:
        return [c for (c, m) in self.pooled if m == metric]

    def runs(self, cid: str, metric: str) -> list[tuple[str, object]]:
        return [(r, s) for (r, m), s in self.streams.items()
                if m == metric and self.meta.get(r, {}).get("config_id") == cid and s.n]

    def kind(self, metric: str) -> str:
        info = self.infos.get(metric) or metric_info(metric, None)
        return info.kind.name

    def heavy_tailed(self, metric: str) -> bool:
        return self.kind(metric) in HEAVY_TAILED

    def log_scale(self, metric: str) -> bool:
        """Gaps and latencies, or any metric whose samples span more than 50x."""
        keys = [k for k in self.pooled if k[1] == metric and self.pooled[k].n]
        lo = min((self.pooled[k].vmin for k in keys), default=0)
        hi = max((self.pooled[k].vmax for k in keys), default=0)
        return self.heavy_tailed(metric) or (lo > 0 and hi / lo > 50)

    def unit(self, metric: str) -> Unit:
        keys = [k for k in self.pooled if k[1] == metric and self.pooled[k].n]
        ns = next((self.pooled[k].ns_per_tick for k in keys if self.pooled[k].ns_per_tick), None)
        declared = (self.infos.get(metric) or metric_info(metric, None)).unit
        if not in_ticks(declared) or not ns:
            return Unit("ticks" if in_ticks(declared) else declared, 1.0)
        median_ns = np.median([self.res_stat(k, "median") or 0 for k in keys]) * ns
        name, scale = next(((n, s) for n, s in TIME_UNITS if median_ns >= s), TIME_UNITS[-1])
        return Unit(name, ns / scale)

    def res_stat(self, key: tuple[str, str], stat: str) -> float | None:
        row = next((r for r in self.res["stats"] if (r["config_id"], r["metric"]) == key), None)
        return row.get(stat) if row else None

    def deadlines(self, metric: str, unit: Unit) -> list[tuple[float, str]]:
        out = []
        for d in (self.res.get("spec") or {}).get("deadlines") or []:
            if d.get("metric") != metric:
                continue
            if d.get("cycles") is not None:
                out.append((float(d["cycles"]) * unit.per_tick, f"deadline {d['cycles']:,.0f} ticks"))
            elif unit.name in dict(TIME_UNITS):
                out.append((d["ns"] / dict(TIME_UNITS)[unit.name], f"deadline {d['ns'] / 1e6:g} ms"))
        return out

    def stressor_spans(self, run_id: str, end_s: float) -> list[tuple[str, float, float]]:
        """(stressor, from, to) in seconds of the run while each stressor ran: the whole
        run for a stressor started with it, else between its timeline events."""
        meta = self.meta.get(run_id, {})
        spans, active = [], {}
        for g in meta.get("stressors") or []:
            if g.get("starts_at_boot", True):  # older runs named instances name.0, name.1 and kept no "stressor"
                active[g.get("stressor") or g["name"].split(".")[0]] = 0.0
        for e in self.events.get(run_id, []):
            target = e.get("target")
            if e.get("action") in ("start", "resume"):
                active.setdefault(target, e["t_s"])
            elif target in active:
                spans.append((target, active.pop(target), e["t_s"]))
        return spans + [(t, s, end_s) for t, s in active.items()]


def legend_outside(ax, **kw) -> None:
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False, **kw)


def value_label(metric: str, unit: Unit, what: str = "") -> str:
    return f"{metric}{' ' + what if what else ''} ({unit.name})"
