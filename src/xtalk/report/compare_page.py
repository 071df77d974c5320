"""`xtalk compare` output: tables and plots of two campaigns side by side, as one
self-contained HTML page (embedded PNG, no external reference) and plain tables for
the terminal. The page opens with the answer: the verdict table (A, the first campaign
named, the reference), each row's sentence, then what makes a number doubtful on each
side (the report's groups, report/answer.py: one line per kind with its count, the
items behind a click), the sides' hosts, the plots. Plots per metric: box plots of each
configuration for A and B next to each other (stored samples / subsample of every
campaign of the side, in the report's time unit, each side's ticks converted with its
own counter frequency), each campaign's value of the compared statistic (where a side
has several campaigns or replicates: the drift between campaigns, seen), and each
campaign's median change versus its own baseline with 95% CIs (which platform isolates
better).
"""
from __future__ import annotations

import dataclasses
import html as _html

import numpy as np
from matplotlib.figure import Figure

from ..analysis import wording
from .answer import Doubt, doubts
from .html import CSS, doubts_html, img, table_html
from .plots.common import COLORS, TIME_UNITS, Context, Unit, png, value_label
from .plots.distribution import values as _values
from .tables import VERDICT_COLS, Table, ci, verdict_cells


def tables(cmp: dict) -> list[Table]:
    la, lb = cmp["a"], cmp["b"]
    a_name, b_name = f"A = {la['label']} ({la['backend']})", f"B = {lb['label']} ({lb['backend']})"
    cols = ["A → B" if c == "baseline → config" else c for c in VERDICT_COLS]
    t = Table("compare", f"{a_name} → {b_name}",
              ["config", "metric"] + cols + ["drift between campaigns", "host load A → B", "sentence"],
              compact=("config", "metric", "statistic", "A → B", "change [95% CI]", "p (units)", "verdict"),
              note="the campaign is a level of the design: each campaign's value is the mean of its runs, and the "
                   "noise floor counts the drift between campaigns, measured from each side's campaigns and the "
                   "stored campaigns of the same spec on this host (replicates); where no side has two, the runs "
                   "are compared and a difference must exceed the drift assumed in its place. different = p < "
                   "alpha, the 95% interval excludes no change, above the noise floor and the negligible change; "
                   "no difference = the 95% interval inside the negligible change. Host load: the median share of "
                   "each run the measured CPU spent on work outside it; where A and B differ by more than 10 "
                   "points, a difference is not told as the system's (inconclusive).")
    iso = Table("isolation", "Isolation: each campaign's verdict against its own baseline",
                ["config", "metric", "A: change", "A: verdict", "B: change", "B: verdict"])
    for r in cmp["rows"]:
        load = r.get("host_load")
        t.rows.append([r["config_id"], r["metric"]] + verdict_cells(r) + [
            drift_cell(r), f"{wording.share(load['a_pct'])} → {wording.share(load['b_pct'])}" if load else "-", r["sentence"]])
        oa, ob = r["a_vs_baseline"] or {}, r["b_vs_baseline"] or {}
        if oa.get("verdict") not in (None, "baseline") or ob.get("verdict") not in (None, "baseline"):
            iso.rows.append([r["config_id"], r["metric"], wording.percent(oa.get("change_pct")) + ci(oa.get("ci95_pct")),
                             oa.get("verdict") or "-", wording.percent(ob.get("change_pct")) + ci(ob.get("ci95_pct")),
                             ob.get("verdict") or "-"])
    return [t] + ([iso] if iso.rows else [])


def drift_cell(row: dict) -> str:
    drift = row.get("drift") or {}
    if not drift:
        return "-"
    if not drift.get("measured"):
        return "not measured: " + drift["text"].rsplit(", ", 1)[-1]
    n = drift["campaigns"]
    return f"±{drift['sd_text']} (sd), from {n[0]} + {n[1]} campaigns" if not drift.get("borrowed") else \
        f"±{drift['sd_text']} (sd), from {max(n)} campaigns of one side"


def in_unit(stream, unit: Unit) -> np.ndarray:
    """A side's samples in the report's unit: ticks converted with the stream's own counter
    frequency (the sides may count in different clocks), other units as they are."""
    scale_ns = dict(TIME_UNITS).get(unit.name)
    if scale_ns and stream.ns_per_tick:
        return _values(stream) * (stream.ns_per_tick / scale_ns)
    return unit.of(_values(stream))


def box_plot(cmp: dict, a, b, metric: str, unit: Unit) -> bytes | None:
    rows = [r for r in cmp["rows"] if r["metric"] == metric]
    if not rows:
        return None
    data, pos, colors = [], [], []
    for i, r in enumerate(rows):
        for j, (side, cid) in enumerate(((a, r["config_id_a"]), (b, r["config_id"]))):
            data.append(np.concatenate([in_unit(s, unit) for s in side.streams(cid, metric)]))
            pos.append(i * 3 + j)
            colors.append(COLORS[j])
    fig = Figure(figsize=(10, 4.6))
    ax = fig.subplots()
    lo, hi = min(d.min() for d in data), max(d.max() for d in data)
    parts = ax.boxplot(data, positions=pos, widths=0.8, patch_artist=True, flierprops={"markersize": 2})
    for patch, color in zip(parts["boxes"], colors):
        patch.set_facecolor(color)
        patch.set_alpha(0.45)
    if lo > 0 and hi / lo > 50:
        ax.set_yscale("log")
    ax.set_xticks([i * 3 + 0.5 for i in range(len(rows))], [r["config_id"] for r in rows])
    ax.set_ylabel(value_label(metric, unit))
    for j, name in enumerate((cmp["a"]["label"], cmp["b"]["label"])):
        ax.plot([], [], color=COLORS[j], lw=6, alpha=0.45, label=name)
    ax.legend(fontsize=8)
    ax.set_title(f"{metric}: {cmp['a']['label']} vs {cmp['b']['label']} per configuration (outliers kept)")
    return png(fig)


def campaigns_plot(cmp: dict, metric: str) -> bytes | None:
    """Each campaign's value of the compared statistic per configuration: A's and B's
    campaigns filled, their replicates (same spec, same host) hollow."""
    rows = [r for r in cmp["rows"] if r["metric"] == metric and r.get("campaign_values")]
    if not rows or all(sum(len(v) for v in r["campaign_values"].values()) <= 2 for r in rows):
        return None
    fig = Figure(figsize=(10, 1.6 + 0.7 * len(rows)))
    ax = fig.subplots()
    for i, r in enumerate(rows):
        values = r["campaign_values"]
        for j, key in enumerate(("a", "b")):
            y = i + (j - 0.5) * 0.3
            for filled, vals in ((True, values[key]), (False, values.get(f"siblings_{key}") or [])):
                pts = [v for v in vals if v is not None]
                if not pts:
                    continue
                ax.plot(pts, [y] * len(pts), "o", color=COLORS[j], mfc=COLORS[j] if filled else "white",
                        label=(cmp[key]["label"] if filled else f"{cmp[key]['label']}: replicates") if i == 0 else None)
    ax.set_yticks(range(len(rows)), [r["config_id"] for r in rows])
    ax.set_ylim(-0.6, len(rows) - 0.4)
    stat = rows[0].get("statistic_label", "value")
    ax.set_xlabel(f"{stat} of each campaign ({'% of the CPU: ' if rows[0].get('stat_unit') == 'share' else ''}"
                  f"as stored)")
    ax.set_title(f"{metric}: one point per campaign (the drift between campaigns)")
    ax.legend(fontsize=8)
    return png(fig)


def isolation_plot(cmp: dict, metric: str) -> bytes | None:
    rows = [r for r in cmp["rows"] if r["metric"] == metric and any(
        (r[k] or {}).get("change_pct") is not None for k in ("a_vs_baseline", "b_vs_baseline"))]
    if not rows:
        return None
    fig = Figure(figsize=(10, 1.4 + 0.8 * len(rows)))
    ax = fig.subplots()
    for j, side in enumerate(("a_vs_baseline", "b_vs_baseline")):
        for i, r in enumerate(rows):
            own = r[side]
            if not own or own.get("change_pct") is None:
                continue
            v, lohi = own["change_pct"], own.get("ci95_pct")
            err = [[max(0.0, v - lohi[0])], [max(0.0, lohi[1] - v)]] if lohi else None
            ax.errorbar([v], [i + (j - 0.5) * 0.3], xerr=err, fmt="o", color=COLORS[j], capsize=3,
                        label=cmp["a" if j == 0 else "b"]["label"] if i == 0 else None)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(range(len(rows)), [r["config_id"] for r in rows])
    ax.set_xlabel("change of the primary statistic versus the campaign's own baseline (%), 95% interval")
    ax.set_title(f"{metric}: isolation compared")
    ax.legend(fontsize=8)
    return png(fig)


def plots(cmp: dict, a, b) -> list[dict]:
    out = []
    for metric in sorted({r["metric"] for r in cmp["rows"]}):
        unit = Context.of(a.campaigns[0]).unit(metric)  # the unit A's report shows this metric in
        for kind, data in (("box", box_plot(cmp, a, b, metric, unit)), ("campaigns", campaigns_plot(cmp, metric)),
                           ("isolation", isolation_plot(cmp, metric))):
            if data:
                out.append({"id": f"{kind}-{metric}", "title": f"{metric}: {kind}", "png": data})
    return out


def side_doubts(result: dict) -> list[Doubt]:
    """A side's warnings and noise flags grouped as its report groups them; without the
    links to the report's verdict rows, which this page does not have."""
    return [dataclasses.replace(d, links=[]) for d in doubts(result)]


def _side_line(cmp: dict, key: str) -> str:
    s = cmp[key]
    names = ", ".join(s.get("campaigns") or [str(s.get("id"))])
    many = len(s.get("campaigns") or []) > 1
    return (f"<li><b>{key.upper()} = {_html.escape(str(s['label']))}</b> ({_html.escape(s['backend'])}): "
            f"campaign{'s' if many else ''} {_html.escape(names)}, {side_runs(s)}</li>")


def side_runs(side: dict) -> str:
    """'5 of 6 runs passed', and the gates' outcome where the spec has gates."""
    gates = "" if side["overall"] in ("NO GATES", "NOT EVALUATED") else f", gates {side['overall']}"
    return f"{side['runs_passed']} of {side['runs_stored']} runs passed{_html.escape(gates)}"


def _side_details(cmp: dict, key: str) -> str:
    s = cmp[key]
    own = s.get("campaigns") or []
    given = [f"its {len(own)} campaigns, replicates of each other"] if len(own) > 1 else []
    given += [", ".join(s["siblings"])] if s.get("siblings") else []
    reps = ("replicates (same spec, same host) measuring the drift: " + "; and ".join(given) if given
            else "no replicates: the drift between campaigns is not measured on this side")
    host = ", ".join(str(v) for v in s["host"].values() if v)
    return f"<li>{key.upper()}: host {_html.escape(host)}; {_html.escape(reps)}</li>"


def page(cmp: dict, tabs: list[Table], figs: list[dict], groups: dict[str, list[Doubt]]) -> str:
    """The answer first (the sides named, the verdict table, its sentences), then what
    makes a number doubtful per side (grouped, folded), the hosts, the plots."""
    unmatched = ""
    if cmp["only_a"] or cmp["only_b"]:
        unmatched = (f"<p>only in A: {_html.escape(', '.join(cmp['only_a']) or 'none')}; only in B: "
                     f"{_html.escape(', '.join(cmp['only_b']) or 'none')}</p>")
    sentences = "".join(f"<li>{_html.escape(r['sentence'])}</li>" for r in cmp["rows"])
    doubtful = "".join(f"<h3>{key.upper()}: {_html.escape(str(cmp[key]['label']))}</h3>{doubts_html(groups[key])}"
                       for key in ("a", "b"))
    title = f"xtalk compare: {cmp['a']['label']} vs {cmp['b']['label']}"
    return (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{_html.escape(title)}</title>"
            f"<style>{CSS}</style></head><body><h1>{_html.escape(title)}</h1>"
            f"<ul>{_side_line(cmp, 'a')}{_side_line(cmp, 'b')}</ul>"
            + "".join(table_html(t) for t in tabs) + f"<ul class=\"sentences\">{sentences}</ul>{unmatched}"
            f"<h2 id=\"doubts\">What makes a number doubtful</h2>{doubtful}"
            f"<h2>Sides</h2><ul>{_side_details(cmp, 'a')}{_side_details(cmp, 'b')}</ul><h2>Plots</h2>"
            + "".join(img(f["title"], f["png"]) for f in figs) + "</body></html>\n")
