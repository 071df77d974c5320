"""Exceedance (1 - CDF, log scale) of each metric per configuration over every sample,
from the log-linear histogram: how often a value is exceeded, down to 1/n; the pWCET
curves of the EVT fits that passed their checks, and "no pWCET: <reason>" where EVT
refused. Replaces overlapping histograms: curves of several configurations stay
readable and the tail is where isolation shows.
"""
from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ...analysis import hist
from . import plot
from .common import COLORS, Context, Plot, legend_outside, value_label


@plot(50)
def exceedance(ctx: Context) -> list[Plot]:
    evt = {(r["config_id"], r["metric"]): r for r in ctx.res.get("evt") or []}
    out = []
    for metric in ctx.metrics():
        unit = ctx.unit(metric)
        keys = [(c, metric) for c in ctx.configs(metric) if ctx.pooled[(c, metric)].n]
        fig = Figure(figsize=(11, 4.6), layout="constrained")
        ax = fig.subplots()
        ymin, fitted, refused = 1.0, False, []
        for k, color in zip(keys, COLORS * 4):
            s = ctx.pooled[k]
            low, width, count = hist.nonzero(s.hist)
            x = unit.of(np.minimum(low + width - 1, s.vmax))
            surv = (s.n - np.cumsum(count)) / s.n
            keep = surv > 0
            ax.step(x[keep], surv[keep], where="post", color=color, lw=1.3, label=f"{k[0]} (n={s.n:,})")
            ymin = min(ymin, 1.0 / s.n)
            fit = evt.get(k) or {}
            for method, ls in (("gev", "--"), ("pot", ":")):
                m = fit.get(method) or {}
                if m.get("status") == "ok" and m.get("curve"):
                    c = np.array(m["curve"])
                    ax.plot(unit.of(c[:, 1]), c[:, 0], ls=ls, color=color, lw=1.2, label=f"{k[0]} pWCET ({method})")
                    ymin, fitted = min(ymin, 1e-9), True
            if fit and fit.get("status") != "ok":
                refused.append(f"no pWCET for {k[0]}: {(fit.get('reasons') or ['refused'])[0]}")
        for value, label in ctx.deadlines(metric, unit):
            ax.axvline(value, color="red", ls="--", lw=1, label=label)
        if refused:
            ax.text(0.01, 0.02, "\n".join(refused), transform=ax.transAxes, fontsize=7, va="bottom", color="#555")
        ax.set_yscale("log")
        if ctx.log_scale(metric):
            ax.set_xscale("log")
        ax.set_ylim(max(ymin / 3, 1e-12), 1.2)
        ax.set_xlabel(value_label(metric, unit))
        ax.set_ylabel("share of samples above x (1 - CDF)")
        ax.set_title(f"{metric}: exceedance" + (" with pWCET curves" if fitted else " (no pWCET: see the notes)"),
                     fontsize=10)
        legend_outside(ax)
        out.append(Plot(f"exceedance-{metric}", f"{metric}: exceedance", fig, metric))
    return out
