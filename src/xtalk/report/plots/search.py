"""The worst-case search's plots, in the report of its confirmation campaign (campaign.json
`study` of kind "search"): each trial's harm against the trial number (finished trials as
dots, pruned ones as crosses at the value that stopped them, the best so far as a step
line), and which parameters mattered (PED-ANOVA importances), when known.
"""
from __future__ import annotations

from matplotlib.figure import Figure

from . import plot
from .common import Context, Plot, legend_outside


def _search(ctx: Context) -> dict | None:
    study = ctx.res.get("study") or {}
    return study.get("search") if study.get("kind") == "search" else None


@plot(3)
def search_trials(ctx: Context) -> list[Plot]:
    s = _search(ctx)
    if not s:
        return []
    trials = s["trials"]
    fig = Figure(figsize=(11, 3.6), layout="constrained")
    ax = fig.subplots()
    done = [t for t in trials if t["state"] == "complete" and t["value"] is not None]
    pruned = [t for t in trials if t["state"] == "pruned" and t["intermediate"] is not None]
    defaults = [t for t in done if t.get("default_of")]
    ax.scatter([t["number"] for t in done], [t["value"] for t in done], color="#1f77b4", label="trial", zorder=3)
    if pruned:
        ax.scatter([t["number"] for t in pruned], [t["intermediate"] for t in pruned], marker="x", color="#999",
                   label="pruned (value at its first stage)", zorder=3)
    for t in defaults:
        ax.annotate(f"default {t['default_of']}", (t["number"], t["value"]), fontsize=8, xytext=(4, 4),
                    textcoords="offset points")
    best, line = None, []
    for t in sorted(done, key=lambda t: t["number"]):
        best = t["value"] if best is None else max(best, t["value"])
        line.append((t["number"], best))
    if line:
        ax.step(*zip(*line), where="post", color="#d62728", label="best so far")
    ax.axhline(0, color="#444", lw=0.8)
    ax.set_xlabel("trial")
    ax.set_ylabel(f"harm to {s['metric']} ({s['harm_unit']} against alone)")
    ax.set_title(f"search {s['name']}: {len(done)} finished, {len(pruned)} pruned, {s['placement']}",
                 fontsize=10, loc="left")
    legend_outside(ax)
    out = [Plot("search-trials", f"search {s['name']}: the measurer's harm against trial", fig, s["metric"], "answer")]
    values = (s.get("importances") or {}).get("values") or {}
    if values:
        fig2 = Figure(figsize=(11, 0.6 + 0.35 * len(values)), layout="constrained")
        ax2 = fig2.subplots()
        names = list(values)[::-1]
        ax2.barh(names, [values[n] for n in names], color="#1f77b4")
        ax2.set_xlabel("importance (PED-ANOVA, share of the spread of harm)")
        ax2.set_ylabel("parameter")
        ax2.set_title("which parameters mattered", fontsize=10, loc="left")
        out.append(Plot("search-importance", f"search {s['name']}: which parameters mattered", fig2, s["metric"],
                        "answer"))
    return out
