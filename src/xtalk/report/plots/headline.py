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

VERDICT_COLORS = {"interference": "#c62828", "no-interference": "#2e7d32", "inconclusive": "#ef6c00"}


@plot(0)
def headline(ctx: Context) -> list[Plot]:
    metrics = [m for m in ctx.metrics() if any(v["metric"] == m and v["verdict"] != "baseline"
                                               for v in ctx.res["verdicts"])]
    if not metrics:
        return []
    rows = {m: [v for v in ctx.res["verdicts"] if v["metric"] == m and v["verdict"] != "baseline"] for m in metrics}
    fig = Figure(figsize=(11, 0.9 + sum(0.45 * len(r) + 0.7 for r in rows.values())), layout="constrained")
    axes = fig.subplots(len(metrics), 1, squeeze=False, height_ratios=[len(rows[m]) + 1 for m in metrics])[:, 0]
    seen, named = set(), labels(ctx.res)
    for ax, metric in zip(axes, metrics):
        unit, span = "%", [0.0]
        for i, v in enumerate(rows[metric]):
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
        ax.set_yticks(range(len(rows[metric])), [named.get(v["config_id"], v["config_id"]) for v in rows[metric]])
        ax.set_ylim(-0.7, len(rows[metric]) - 0.3)
        ax.invert_yaxis()
        stat = rows[metric][0].get("statistic_label", "")
        ax.set_xlabel(f"change of the {stat} ({unit}), 95% interval")
        ax.set_title(f"{metric}: {stat}", fontsize=10, loc="left")
        legend_outside(ax)
    return [Plot("headline", "Change of each metric against its baseline", fig, section="answer")]
