"""The moment a stressor is switched, zoomed: for every configuration with timeline
events, the samples around each event, aligned on it (time relative to the event) and
pooled over all runs and all events of the same direction (switched on: start/resume;
switched off: pause/stop), with the median of 40 bins: the dip at the transition and
the recovery, which the thesis authors zoomed into by hand. Window: +/-10 % of the run,
at most half the distance between events.
"""
from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from . import plot
from .common import Context, Plot, value_label

GROUPS = (("switched on", ("start", "resume")), ("switched off", ("pause", "stop")))
BINS = 40


def _window(events: list[dict], end: float) -> float:
    times = sorted(e["t_s"] for e in events)
    gaps = np.diff(times)
    w = 0.1 * end
    return float(min(w, gaps.min() / 2)) if len(gaps) else w


def _aligned(ctx: Context, runs, actions: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray, int, float]:
    xs, ys, n, width = [], [], 0, np.inf
    for rid, s in runs:
        v, t = (s.exact, s.exact_t) if s.exact is not None else s.subsample()[1:]
        events = ctx.events.get(rid, [])
        if not len(t) or not events or not np.isfinite(t).all():
            continue
        w = _window(events, float(t.max()))
        width = min(width, w)
        for e in events:
            if e.get("action") in actions:
                sel = np.abs(t - e["t_s"]) <= w
                xs.append(t[sel] - e["t_s"])
                ys.append(v[sel])
                n += 1
    if not xs:
        return np.zeros(0), np.zeros(0), 0, 0.0
    return np.concatenate(xs), np.concatenate(ys).astype(np.float64), n, width


@plot(30)
def eventzoom(ctx: Context) -> list[Plot]:
    out = []
    for metric in ctx.metrics():
        unit = ctx.unit(metric)
        for cid in ctx.configs(metric):
            runs = [(r, s) for r, s in ctx.runs(cid, metric) if ctx.events.get(r)]
            groups = [(label, *_aligned(ctx, runs, actions)) for label, actions in GROUPS]
            groups = [g for g in groups if len(g[1])]
            if not groups:
                continue
            fig = Figure(figsize=(11, 3.4), layout="constrained")
            axes = fig.subplots(1, len(groups), squeeze=False, sharey=True)[0]
            for ax, (label, x, y, n, w) in zip(axes, groups):
                y = unit.of(y)
                ax.scatter(x, y, s=3, alpha=0.3, color="#1f77b4")
                edges = np.linspace(-w, w, BINS + 1)
                idx = np.clip(np.digitize(x, edges) - 1, 0, BINS - 1)
                med = [np.median(y[idx == i]) if (idx == i).any() else np.nan for i in range(BINS)]
                ax.plot((edges[:-1] + edges[1:]) / 2, med, color="black", lw=1.4, label="bin median")
                ax.axvline(0, color="#ff9800", lw=1.5)
                if ctx.log_scale(metric):
                    ax.set_yscale("log")
                ax.set_xlabel(f"time since the stressor was {label} (s)")
                ax.set_ylabel(value_label(metric, unit))
                ax.set_title(f"{cid}: {label} ({n} events pooled)", fontsize=10, loc="left")
            out.append(Plot(f"eventzoom-{metric}-{cid}", f"{metric}, {cid}: around each switch of the stressor",
                            fig, metric))
    return out
