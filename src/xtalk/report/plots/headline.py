"""The headline plot, first on the report's first screen: per metric, each configuration's
change of the metric kind's primary statistic against its baseline (or its own
off-windows) with the 95% interval, the noise floor as a grey band, coloured by verdict.
Shares (stolen time) in percentage points, everything else in %.
"""
from __future__ import annotations

from matplotlib.figure import Figure

from ..configs import labels
from . import plot
from .common import Context, Plot, change_numbers, legend_outside

VERDICT_COLORS = {"interference": "#c62828", "no-interference": "#2e7d32", "inconclusive": "#ef6c00",
                  "overhead": "#c62828", "no-overhead": "#2e7d32"}


def change_plot(ctx: Context, rows: list[dict], ident: str, title: str) -> list[Plot]:
    """One panel per metric: each row's change of the primary statistic with its interval
    and noise floor, coloured by verdict (baseline rows left out)."""
    rows = [v for v in rows if v["verdict"] != "baseline"]
    by_metric = {m: [v for v in rows if v["metric"] == m] for m in ctx.metrics() if any(v["metric"] == m for v in rows)}
    if not by_metric:
        return []
    fig = Figure(figsize=(11, 0.9 + sum(0.45 * len(r) + 0.7 for r in by_metric.values())), layout="constrained")
    axes = fig.subplots(len(by_metric), 1, squeeze=False, height_ratios=[len(r) + 1 for r in by_metric.values()])[:, 0]
    seen, named = set(), labels(ctx.res)
    for ax, (metric, mine) in zip(axes, by_metric.items()):
        unit, span = "%", [0.0]
        for i, v in enumerate(mine):
            change, ci, floor, unit = change_numbers(v)
            if floor is not None:
                ax.plot([-floor, floor], [i, i], color="#cfcfcf", lw=9, solid_capstyle="butt",
                        label=None if "floor" in seen else "noise floor")
                seen.add("floor")
            if change is None:
                continue
            span += [change] + [c for c in ci or [] if c is not None]
            color = VERDICT_COLORS.get(v["verdict"], "#555")
            err = [[max(0.0, change - ci[0])], [max(0.0, ci[1] - change)]] if ci and None not in ci else None
            ax.errorbar([change], [i], xerr=err, fmt="o", color=color, capsize=4,
                        label=None if v["verdict"] in seen else v["verdict"])
            seen.add(v["verdict"])
        ax.axvline(0, color="black", lw=0.8)
        lo, hi = min(span), max(span)  # a noise floor far wider than the changes is cut at the edge
        pad = 0.15 * (hi - lo) or 1.0
        ax.set_xlim(lo - pad, hi + pad)
        ax.set_yticks(range(len(mine)), [named.get(v["config_id"], v["config_id"]) for v in mine])
        ax.set_ylim(-0.7, len(mine) - 0.3)
        ax.invert_yaxis()
        stat = mine[0].get("statistic_label", "")
        ax.set_xlabel(f"change of the {stat} ({unit}), 95% interval")
        ax.set_title(f"{metric}: {stat}", fontsize=10, loc="left")
        legend_outside(ax)
    return [Plot(ident, title, fig, section="answer")]


@plot(0)
def headline(ctx: Context) -> list[Plot]:
    return change_plot(ctx, ctx.res["verdicts"], "headline", "Change of each metric against its baseline")
