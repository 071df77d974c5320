"""Interactive time plots in report.html: per metric, one chart per configuration with
every run's samples against seconds since the measurer started, drawn by uPlot (vendor/,
MIT, inlined: the page stays one self-contained file that works offline). Drag to zoom
(x and y), double-click to zoom out, click a legend entry to hide a run.
Data: each run's stride subsample thinned to at most POINTS points, values in the unit
the static plots use; gaps and latencies on a log scale.
"""
from __future__ import annotations

import html
import json
from pathlib import Path

import numpy as np

from .plots.common import COLORS, Context

POINTS = 2500
VENDOR = Path(__file__).with_name("vendor")

SCRIPT = """
(function () {
  const charts = JSON.parse(document.getElementById('xt-series').textContent);
  for (const c of charts) {
    const el = document.getElementById(c.id);
    const data = uPlot.join(c.runs.map(r => [r.t, r.v]));
    const series = [{label: 't (s)'}].concat(c.runs.map(r => ({
      label: r.label, stroke: r.color, width: 0, paths: () => null,
      points: {show: true, size: 3, fill: r.color, stroke: r.color}})));
    new uPlot({
      width: Math.min(1100, el.clientWidth || 1100), height: 300, title: c.title, series: series,
      scales: {x: {time: false}, y: {distr: c.log ? 3 : 1}},
      axes: [{label: 'time since the measurer started (s)'}, {label: c.ylabel, size: 70}],
      cursor: {drag: {x: true, y: true, uni: 30}},
    }, data, el);
    el.dataset.rendered = 'yes';
  }
})();
"""


def _thin(t: np.ndarray, v: np.ndarray) -> tuple[list, list]:
    step = max(1, len(t) // POINTS)
    t, v = t[::step], v[::step]
    return np.round(t, 6).tolist(), [float(f"{x:.6g}") for x in v]


def charts(analysis) -> list[dict]:
    ctx = Context.of(analysis)
    out = []
    for metric in ctx.metrics():
        unit = ctx.unit(metric)
        for i, cid in enumerate(ctx.configs(metric)):
            runs = []
            for (rid, s), color in zip(ctx.runs(cid, metric), COLORS * 8):
                _, val, ts = s.subsample()
                ok = np.isfinite(ts)
                if not ok.any():
                    continue
                order = np.argsort(ts[ok], kind="stable")
                t, v = _thin(ts[ok][order], unit.of(val[ok][order]))
                runs.append({"label": rid, "color": color, "t": t, "v": v})
            if runs:
                out.append({"id": f"xt-ts-{metric}-{i}", "title": f"{metric}: {cid}", "runs": runs,
                            "ylabel": f"{metric} ({unit.name})", "log": ctx.log_scale(metric)})
    return out


def section(analysis) -> str:
    """The HTML of the interactive section (empty when no run has sample times)."""
    data = charts(analysis)
    if not data:
        return ""
    divs = "".join(f'<div class="xt-chart" id="{html.escape(c["id"])}"></div>' for c in data)
    payload = json.dumps(data).replace("</", "<\\/")
    return (f"<style>{(VENDOR / 'uPlot.min.css').read_text()}</style>"
            f'<p class="note">Drag to zoom (x and y), double-click to zoom out, click a run in the legend to hide '
            f"it.</p>{divs}"
            f'<script type="application/json" id="xt-series">{payload}</script>'
            f"<script>{(VENDOR / 'uPlot.iife.min.js').read_text()}</script><script>{SCRIPT}</script>")
