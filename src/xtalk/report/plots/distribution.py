"""Distribution of each metric per configuration: a box per configuration over every
stored sample (whiskers to the 1st and 99th percentiles, the rest drawn as points:
outliers are results, never trimmed), the p99 marked, the spec's deadlines; log scale
for gaps and latencies or when the values span more than 50x.
"""
from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from . import plot
from .common import COLORS, Context, Plot, legend_outside, value_label


def values(stream) -> np.ndarray:
    v = stream.exact
    return (v if v is not None else stream.subsample()[1]).astype(np.float64)


@plot(10)
def distribution(ctx: Context) -> list[Plot]:
    out = []
    for metric in ctx.metrics():
        unit = ctx.unit(metric)
        keys = [(c, metric) for c in ctx.configs(metric)]
        data = [unit.of(values(ctx.pooled[k])) for k in keys]
        fig = Figure(figsize=(11, 4.4), layout="constrained")
        ax = fig.subplots()
        parts = ax.boxplot(data, whis=(1, 99), widths=0.5, patch_artist=True,
                           flierprops={"markersize": 2, "alpha": 0.4})
        for box, color in zip(parts["boxes"], COLORS * 4):
            box.set_facecolor(color)
            box.set_alpha(0.35)
        for x, d in enumerate(data, 1):
            if len(d):
                ax.scatter([x], [np.percentile(d, 99)], marker="v", color="black", s=22, zorder=3,
                           label="p99" if x == 1 else None)
        for value, label in ctx.deadlines(metric, unit):
            ax.axhline(value, color="red", ls="--", lw=1, label=label)
        if ctx.log_scale(metric):
            ax.set_yscale("log")
        ax.set_xticks(range(1, len(keys) + 1), [f"{k[0]}\n(n={ctx.pooled[k].n:,})" for k in keys])
        ax.set_ylabel(value_label(metric, unit))
        ax.set_xlabel("configuration (samples of every passing run)")
        ax.set_title(f"{metric}: distribution per configuration (box: quartiles; whiskers: 1-99 %)", fontsize=10)
        legend_outside(ax)
        out.append(Plot(f"distribution-{metric}", f"{metric}: distribution per configuration", fig, metric))
    return out
