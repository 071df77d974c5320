"""Each metric over time in the run, one panel per configuration with one y-scale for all
(placements compare at a glance): the samples of every run (its stride subsample for long
runs) and each run's bin medians, against seconds since the measurer started; a solid
band at the top while a stressor ran (the first run's start and timeline events). Log
scale for gaps and latencies.
"""
from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from matplotlib.transforms import blended_transform_factory

from ...analysis.changepoints import binned
from . import plot
from .common import COLORS, Context, Plot, legend_outside, value_label

BAND_COLORS = ("#ff9800", "#795548", "#607d8b")


def stressor_band(ax, spans: list[tuple[str, float, float]]) -> None:
    """A solid band along the top of the axes while each stressor ran, one row per stressor."""
    names = list(dict.fromkeys(n for n, _, _ in spans))
    trans = blended_transform_factory(ax.transData, ax.transAxes)
    for i, name in enumerate(names):
        y = 0.97 - 0.035 * i
        for j, (n, a, b) in enumerate(s for s in spans if s[0] == name):
            ax.plot([a, b], [y, y], transform=trans, color=BAND_COLORS[i % len(BAND_COLORS)], lw=5,
                    solid_capstyle="butt", label=f"{name} running" if j == 0 else None)


@plot(20)
def timeseries(ctx: Context) -> list[Plot]:
    out = []
    for metric in ctx.metrics():
        unit = ctx.unit(metric)
        cfgs = [c for c in ctx.configs(metric) if ctx.runs(c, metric)]
        fig = Figure(figsize=(11, 2.6 * len(cfgs) + 0.4), layout="constrained")
        axes = fig.subplots(len(cfgs), 1, squeeze=False, sharey=True)[:, 0]
        drawn = False
        for ax, cid in zip(axes, cfgs):
            runs = ctx.runs(cid, metric)
            end = 0.0
            for (rid, s), color in zip(runs, COLORS * 8):
                _, val, ts = s.subsample()
                if not len(ts) or not np.isfinite(ts).all():
                    continue
                drawn = True
                end = max(end, float(ts.max()))
                ax.scatter(ts, unit.of(val), s=2, alpha=0.25, color=color)
                b = binned(s)
                ax.plot(b["x"], unit.of(b["median"]), color=color, lw=1.2, label=f"{rid} (bin median)")
            if runs:
                stressor_band(ax, ctx.stressor_spans(runs[0][0], end))
            if ctx.log_scale(metric):
                ax.set_yscale("log")
            ax.set_ylabel(value_label(metric, unit))
            ax.set_xlabel("time since the measurer started (s)")
            ax.set_title(f"{cid}", fontsize=10, loc="left")
            legend_outside(ax, ncol=1)
        if drawn:
            out.append(Plot(f"timeseries-{metric}", f"{metric}: over time in the run", fig, metric))
    return out
