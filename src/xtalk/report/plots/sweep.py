"""Seed 004's figure, in the answer section: per metric, the change of the measurer's
primary statistic against its baseline (solo) versus the bytes of a swept size (a
`[matrix]` dimension such as stressors.copy.params.size, in cache units or bytes; log
scale, ticks labelled with the size as given and in bytes), one line per value of the
other dimensions that vary (the number of interferers, stressors.copy.instances), with
the 95% interval of the verdicts (cut at the edge where it is far wider than the changes)
and the runs' caches (L1, L2, L3) as vertical lines. Filled markers: interference; open:
no interference or inconclusive.

Drawn only when the runs recorded the size's bytes (xtalk.spec.sizes) for at least two
values. Static only: the report's interactive plots are the time plots.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from matplotlib.figure import Figure

from ...spec.sizes import human
from ..configs import config_sizes, labels, size_dims, varying
from . import plot
from .common import COLORS, Context, Plot, change_numbers, legend_outside

CACHE_LEVELS = ("l1", "l2", "l3")  # the llc is one of them (or, without an l3, the l2)
DODGE = 1.08  # factor between the x of neighbouring lines at one size (log scale)


@dataclass(frozen=True)
class Point:
    bytes: int
    text: str
    change: float
    ci: tuple[float, float] | None
    verdict: str


@dataclass
class Sweep:
    metric: str
    dim: str
    statistic: str
    unit: str  # % or points
    lines: dict[str, list[Point]] = field(default_factory=dict)  # label -> points by bytes
    caches: dict[str, int] = field(default_factory=dict)


def sweeps(res: dict) -> list[Sweep]:
    """One Sweep per metric over the first size dimension of the matrix (its bytes known
    for two values at least); the lines are the values of the other dimensions that vary
    between the configurations plotted (one line when none does)."""
    dims = size_dims(res)
    if not dims:
        return []
    dim, sizes, configs = dims[0], config_sizes(res), res.get("configs") or {}
    rows = [(v, (sizes.get(v["config_id"]) or {}).get(dim), change_numbers(v)) for v in res["verdicts"]
            if v["verdict"] != "baseline"]
    rows = [(v, size, numbers) for v, size, numbers in rows
            if size and size.get("bytes") is not None and numbers[0] is not None]
    plotted = {v["config_id"] for v, _, _ in rows}
    others = [d for d in varying(res) if d != dim and len({str(configs[c].get(d)) for c in plotted}) > 1]
    line_of = labels(res, others) if others else {}
    caches = next((r["caches"] for r in res["runs"] if r.get("caches")), {})
    out: dict[str, Sweep] = {}
    for v, size, (change, ci, _, unit) in rows:
        sweep = out.setdefault(v["metric"], Sweep(v["metric"], dim, v.get("statistic_label", ""), unit,
                                                  caches={k: caches[k] for k in CACHE_LEVELS if caches.get(k)}))
        point = Point(size["bytes"], size["text"], change, tuple(ci) if ci and None not in ci else None, v["verdict"])
        sweep.lines.setdefault(line_of.get(v["config_id"], v["metric"]), []).append(point)
    for sweep in out.values():
        for points in sweep.lines.values():
            points.sort(key=lambda p: p.bytes)
    return [s for s in out.values() if len({p.bytes for ps in s.lines.values() for p in ps}) >= 2]


def _draw(s: Sweep) -> Figure:
    fig = Figure(figsize=(11, 4.8), layout="constrained")
    ax = fig.subplots()
    ticks: dict[int, str] = {}
    for i, ((name, points), color) in enumerate(zip(s.lines.items(), COLORS * 8)):
        shift = DODGE ** (i - (len(s.lines) - 1) / 2)  # lines side by side: their intervals do not hide each other
        x = [p.bytes * shift for p in points]
        ax.plot(x, [p.change for p in points], color=color, lw=1.4, label=name)
        for p, at in zip(points, x):
            err = [[max(0.0, p.change - p.ci[0])], [max(0.0, p.ci[1] - p.change)]] if p.ci else None
            ax.errorbar([at], [p.change], yerr=err, fmt="o", color=color, capsize=3, ms=6,
                        mfc=color if p.verdict == "interference" else "white")
            ticks.setdefault(p.bytes, f"{p.text}\n{human(p.bytes)}" if not p.text.isdigit() else human(p.bytes))
    for level, nbytes in s.caches.items():
        ax.axvline(nbytes, color="#888", ls="--", lw=0.9)
        ax.text(nbytes, 0.01, f" {level.upper()} {human(nbytes)}", transform=ax.get_xaxis_transform(),
                fontsize=8, color="#555", va="bottom", rotation=90)
    ax.axhline(0, color="black", lw=0.8)
    changes = [0.0] + [p.change for points in s.lines.values() for p in points]
    room = max(max(changes) - min(changes), 10.0) / 2  # intervals far wider than the changes are cut at the edge
    ax.set_ylim(min(changes) - room, max(changes) + room)
    ax.set_xscale("log")
    ax.set_xticks(list(ticks), list(ticks.values()), fontsize=8)
    ax.minorticks_off()
    ax.set_xlabel(f"{s.dim} (bytes, log scale)")
    ax.set_ylabel(f"change of the {s.statistic} ({s.unit}), 95% interval")
    ax.set_title(f"{s.metric}: change against the baseline by size; filled = interference", fontsize=10, loc="left")
    legend_outside(ax)
    return fig


@plot(5)
def sweep(ctx: Context) -> list[Plot]:
    return [Plot(f"sweep-{s.metric}", f"{s.metric}: change versus {s.dim}", _draw(s), s.metric, section="answer")
            for s in sweeps(ctx.res)]
