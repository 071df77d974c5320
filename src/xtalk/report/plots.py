"""The report's plots, drawn with matplotlib's object API (Agg, no pyplot state, no
display) and returned as PNG bytes for embedding as data: URIs.

Per metric: violin per configuration, first iterations of each run (ramp-up), value vs
time in the run with stress periods shaded, log-y histogram, exceedance (1 - CDF,
log-y) with the pWCET curve, and the change versus the baseline with its CIs.
Data: violins, time series and ramp-ups use the stored uniform-stride subsample /
the first samples of each run (all samples for small runs); histograms and exceedance
curves use the full log-linear histogram (every sample). Ticks on the left axis, the
time equivalent on the right axis where the counter frequency is known.
"""
from __future__ import annotations

import io

import numpy as np
from matplotlib.figure import Figure

from ..analysis import hist as H
from ..analysis.changepoints import binned

COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf")
DPI = 90


def png(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, bbox_inches="tight")
    return buf.getvalue()


def _ns_axis(ax, ns_per_tick: float | None, axis: str = "y") -> None:
    if not ns_per_tick:
        return
    f = (lambda v: v * ns_per_tick / 1e6, lambda v: v / ns_per_tick * 1e6)
    sec = ax.secondary_yaxis("right", functions=f) if axis == "y" else ax.secondary_xaxis("top", functions=f)
    (sec.set_ylabel if axis == "y" else sec.set_xlabel)("ms")


def _deadlines(res: dict, metric: str, ns_per_tick: float | None) -> list[tuple[float, str]]:
    out = []
    for d in (res.get("spec") or {}).get("deadlines") or []:
        if d.get("metric") != metric:
            continue
        if d.get("cycles") is not None:
            out.append((float(d["cycles"]), f"deadline {d['cycles']:,.0f} ticks"))
        elif ns_per_tick:
            out.append((d["ns"] / ns_per_tick, f"deadline {d['ns'] / 1e6:g} ms"))
    return out


def _values(stream) -> np.ndarray:
    v = stream.exact
    return (v if v is not None else stream.subsample()[1]).astype(np.float64)


def violin(res: dict, pooled: dict, metric: str, unit: str) -> bytes:
    keys = [k for k in pooled if k[1] == metric]
    data = [_values(pooled[k]) for k in keys]
    fig = Figure(figsize=(10, 4.6))
    ax = fig.subplots()
    lo = min(d.min() for d in data if len(d))
    hi = max(d.max() for d in data if len(d))
    logy = lo > 0 and hi / lo > 50
    plot = [np.log10(d) if logy else d for d in data]
    parts = ax.violinplot([p for p in plot], showextrema=False, widths=0.8)
    for body, color in zip(parts["bodies"], COLORS * 4):
        body.set_facecolor(color)
        body.set_alpha(0.35)
    ax.boxplot(plot, widths=0.15, showfliers=True, flierprops={"markersize": 2, "alpha": 0.4})
    ns = pooled[keys[0]].ns_per_tick
    for x, p in enumerate(plot, 1):
        if len(p):
            ax.scatter([x], [np.percentile(p, 99)], marker="v", color="black", s=18, zorder=3,
                       label="p99" if x == 1 else None)
    for value, label in _deadlines(res, metric, ns):
        ax.axhline(np.log10(value) if logy else value, color="red", ls="--", lw=1, label=label)
    ax.set_xticks(range(1, len(keys) + 1), [f"{k[0]}\n(n={pooled[k].n:,})" for k in keys])
    ax.set_ylabel(f"log10({unit})" if logy else unit)
    if not logy and unit != "count":
        _ns_axis(ax, ns)
    ax.set_title(f"{metric}: distribution per configuration (violin + box; outliers kept)")
    ax.legend(loc="upper left", fontsize=8)
    return png(fig)


def rampup(res: dict, streams: dict, configs_of: dict, metric: str, unit: str, first: int = 500) -> bytes:
    ramp = {(r["run_id"], r["metric"]): r for r in res["rampup"]}
    cfgs = list(dict.fromkeys(configs_of[r] for (r, m) in streams if m == metric))
    fig = Figure(figsize=(10, 2.6 * len(cfgs)), layout="constrained")
    axes = np.atleast_1d(fig.subplots(len(cfgs), 1, sharex=True))
    for ax, cid in zip(axes, cfgs):
        runs = [(r, s) for (r, m), s in streams.items() if m == metric and configs_of[r] == cid]
        for (rid, s), color in zip(runs, COLORS * 8):
            ax.plot(np.arange(min(first, len(s.head_v))), s.head_v[:first], lw=0.8, color=color, label=rid)
            rp = ramp.get((rid, metric))
            if rp and rp["significant"] and rp["warmup_n"] < first:
                ax.axvline(rp["warmup_n"], color=color, ls=":", lw=1.2)
        ax.set_ylabel(unit)
        ax.set_title(f"{cid}: first {first} iterations (dotted: detected warm-up end)", fontsize=10)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(loc="upper right", fontsize=7, ncol=4)
    axes[-1].set_xlabel("iteration")
    return png(fig)


def _shade(ax, events: list[dict]) -> None:
    active: dict[str, float] = {}
    end = ax.get_xlim()[1]
    spans = []
    for e in events:
        if e.get("action") in ("start", "resume"):
            active.setdefault(e.get("target"), e["t_s"])
        elif e.get("target") in active:
            spans.append((e.get("target"), active.pop(e.get("target")), e["t_s"]))
    spans += [(t, s, end) for t, s in active.items()]
    for i, (target, s, e) in enumerate(spans):
        ax.axvspan(s, e, color="orange", alpha=0.18, label=f"{target} running" if i == 0 else None)
    for e in events:
        ax.axvline(e["t_s"], color="orange", lw=0.8)


def timeline(res: dict, streams: dict, configs_of: dict, events: dict, metric: str, unit: str) -> bytes | None:
    cfgs = list(dict.fromkeys(configs_of[r] for (r, m) in streams if m == metric))
    fig = Figure(figsize=(10, 2.8 * len(cfgs)), layout="constrained")
    axes = np.atleast_1d(fig.subplots(len(cfgs), 1))
    drawn = False
    for ax, cid in zip(axes, cfgs):
        runs = [(r, s) for (r, m), s in streams.items() if m == metric and configs_of[r] == cid]
        for (rid, s), color in zip(runs, COLORS * 8):
            _, val, ts = s.subsample()
            if len(ts) == 0 or not np.isfinite(ts).all():
                continue
            drawn = True
            ax.scatter(ts, val, s=2, alpha=0.25, color=color)
            b = binned(s)
            ax.plot(b["x"], b["median"], color=color, lw=1.2, label=f"{rid} (bin median)")
        shaded = bool(runs and events.get(runs[0][0]))
        if shaded:
            _shade(ax, events[runs[0][0]])
        ax.set_ylabel(unit)
        ax.set_title(f"{cid}: {metric} over time in the run"
                     + (" (shaded: stress active, first run's events)" if shaded else ""), fontsize=10)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(loc="upper right", fontsize=7, ncol=3)
    axes[-1].set_xlabel("t in run (s)")
    return png(fig) if drawn else None


def _log_bins(hist: np.ndarray, edges: np.ndarray) -> np.ndarray:
    low, width, count = H.nonzero(hist)
    mid = low + (width - 1) / 2
    return np.histogram(mid, bins=edges, weights=count)[0]


def histogram(res: dict, pooled: dict, metric: str, unit: str) -> bytes:
    keys = [k for k in pooled if k[1] == metric]
    lo = max(1.0, min(pooled[k].vmin for k in keys))
    hi = max(pooled[k].vmax for k in keys) + 1
    logx = hi / lo > 20
    edges = np.geomspace(lo, hi, 121) if logx else np.linspace(lo, hi, 121)
    fig = Figure(figsize=(10, 4.2))
    ax = fig.subplots()
    for k, color in zip(keys, COLORS * 4):
        counts = _log_bins(pooled[k].hist, edges)
        ax.stairs(np.where(counts > 0, counts, np.nan), edges, color=color, label=f"{k[0]} (n={pooled[k].n:,})", lw=1.3)
    for value, label in _deadlines(res, metric, pooled[keys[0]].ns_per_tick):
        ax.axvline(value, color="red", ls="--", lw=1, label=label)
    ax.set_yscale("log")
    if logx:
        ax.set_xscale("log")
    ax.set_xlabel(unit)
    ax.set_ylabel("samples per bin (log)")
    ax.set_title(f"{metric}: histogram (all samples, log count)")
    ax.legend(fontsize=8)
    return png(fig)


def exceedance(res: dict, pooled: dict, metric: str, unit: str) -> bytes:
    keys = [k for k in pooled if k[1] == metric]
    evt = {(r["config_id"], r["metric"]): r for r in res["evt"]}
    fig = Figure(figsize=(10, 4.6))
    ax = fig.subplots()
    ymin = 1.0
    for k, color in zip(keys, COLORS * 4):
        s = pooled[k]
        low, width, count = H.nonzero(s.hist)
        x = np.minimum(low + width - 1, s.vmax)
        surv = (s.n - np.cumsum(count)) / s.n
        keep = surv > 0
        ax.step(x[keep], surv[keep], where="post", color=color, lw=1.3, label=f"{k[0]} observed (n={s.n:,})")
        ymin = min(ymin, 1.0 / s.n)
        fit = evt.get(k) or {}
        for method, ls in (("gev", "--"), ("pot", ":")):
            m = fit.get(method) or {}
            if m.get("status") == "ok" and m.get("curve"):
                c = np.array(m["curve"])
                ax.plot(c[:, 1], c[:, 0], ls=ls, color=color, lw=1.2, label=f"{k[0]} pWCET ({m['method']})")
                ymin = min(ymin, 1e-9)
    for value, label in _deadlines(res, metric, pooled[keys[0]].ns_per_tick):
        ax.axvline(value, color="red", ls="--", lw=1, label=label)
    ax.set_yscale("log")
    ax.set_ylim(max(ymin / 3, 1e-12), 1.2)
    ax.set_xlabel(unit)
    ax.set_ylabel("P(sample > x)")
    ax.set_title(f"{metric}: exceedance (1 - CDF) with pWCET curves where EVT passed its checks")
    ax.legend(fontsize=7)
    return png(fig)


def changes(res: dict, metric: str) -> bytes | None:
    """Each configuration's change of the metric's primary statistic with its 95% interval
    and the noise floor band (the verdicts' numbers)."""
    rows = [v for v in res["verdicts"] if v["metric"] == metric and v["verdict"] != "baseline"
            and v.get("change_pct") is not None]
    if not rows:
        return None
    fig = Figure(figsize=(10, 1.4 + 0.7 * len(rows)))
    ax = fig.subplots()
    for i, v in enumerate(rows):
        c, lohi, floor = v["change_pct"], v.get("ci95_pct"), v.get("noise_floor_pct")
        if floor is not None:
            ax.plot([-floor, floor], [i, i], color="#bbb", lw=8, solid_capstyle="butt",
                    label="noise floor" if i == 0 else None)
        err = [[max(0.0, c - lohi[0])], [max(0.0, lohi[1] - c)]] if lohi and None not in lohi else None
        ax.errorbar([c], [i], xerr=err, fmt="o", color=COLORS[0], capsize=3)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(range(len(rows)), [f"{v['config_id']} ({v['design']})" for v in rows])
    stat = rows[0]["statistic_label"]
    ax.set_xlabel(f"change of the {stat} versus the baseline / off-windows (%), 95% interval over units")
    ax.set_title(f"{metric}: change of the {stat}")
    if any(v.get("noise_floor_pct") is not None for v in rows):
        ax.legend(fontsize=8)
    return png(fig)


def campaign_plots(analysis) -> list[dict]:
    """Every plot of a campaign: [{'id', 'title', 'png'}]."""
    res = analysis.result
    streams, pooled = analysis.runs_streams, analysis.pooled
    configs_of = {r["run_id"]: r["config_id"] for r in res["runs"]}
    out = []
    for metric in sorted({m for _, m in pooled}):
        unit = res["units"].get(metric, "cycles")
        if not any(pooled[k].n for k in pooled if k[1] == metric):
            continue
        items = [("violin", "Distribution per configuration", violin(res, pooled, metric, unit)),
                 ("changes", "Change versus the baseline", changes(res, metric)),
                 ("rampup", "Ramp-up: first iterations of each run", rampup(res, streams, configs_of, metric, unit)),
                 ("timeline", "Value over time in the run", timeline(res, streams, configs_of, analysis.events,
                                                                     metric, unit)),
                 ("histogram", "Histogram (log count)", histogram(res, pooled, metric, unit)),
                 ("exceedance", "Exceedance and pWCET", exceedance(res, pooled, metric, unit))]
        out += [{"id": f"{kind}-{metric}", "title": f"{metric}: {title}", "png": data}
                for kind, title, data in items if data]
    return out
