"""The start-up ramp (thesis Table 5.4): the first FIRST iterations of each run, one
panel per configuration, the detected warm-up end dotted. Drawn only when some run has
more samples than that: otherwise it would repeat the time plot.
"""
from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from . import plot
from .common import COLORS, Context, Plot, legend_outside, value_label

FIRST = 500


@plot(40)
def rampup(ctx: Context) -> list[Plot]:
    ramp = {(r["run_id"], r["metric"]): r for r in ctx.res.get("rampup") or []}
    out = []
    for metric in ctx.metrics():
        unit = ctx.unit(metric)
        cfgs = [c for c in ctx.configs(metric) if ctx.runs(c, metric)]
        if not any(s.n > FIRST for c in cfgs for _, s in ctx.runs(c, metric)):
            continue
        fig = Figure(figsize=(11, 2.4 * len(cfgs) + 0.4), layout="constrained")
        axes = fig.subplots(len(cfgs), 1, squeeze=False, sharex=True, sharey=True)[:, 0]
        for ax, cid in zip(axes, cfgs):
            for (rid, s), color in zip(ctx.runs(cid, metric), COLORS * 8):
                head = s.head_v[:FIRST]
                ax.plot(np.arange(len(head)), unit.of(head), lw=0.8, color=color, label=rid)
                rp = ramp.get((rid, metric))
                if rp and rp["significant"] and rp["warmup_n"] < FIRST:
                    ax.axvline(rp["warmup_n"], color=color, ls=":", lw=1.2)
            if ctx.log_scale(metric):
                ax.set_yscale("log")
            ax.set_ylabel(value_label(metric, unit))
            ax.set_xlabel("iteration (sample number in the run)")
            ax.set_title(f"{cid}: first {FIRST} iterations (dotted: detected warm-up end)", fontsize=10, loc="left")
            legend_outside(ax)
        out.append(Plot(f"rampup-{metric}", f"{metric}: ramp-up, first iterations of each run", fig, metric))
    return out
