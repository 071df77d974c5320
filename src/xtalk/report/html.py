"""One self-contained HTML page: inline CSS, every plot an embedded data: URI PNG, no
script, no external reference of any kind, so it opens offline and can be archived or
attached as it is. Warnings and noise flags come first and are never collapsed.
"""
from __future__ import annotations

import base64
import html

from .tables import Table

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:24px;color:#222;max-width:1500px}
h1{font-size:1.6em;margin-bottom:4px} h2{margin-top:32px;border-bottom:1px solid #ccc;padding-bottom:4px}
table{border-collapse:collapse;margin:8px 0 4px 0;font-size:12px;display:block;overflow-x:auto;max-width:100%}
th,td{border:1px solid #ccc;padding:3px 7px;text-align:right;vertical-align:top}
th{background:#f2f2f2} td:first-child,th:first-child{text-align:left}
td.text,th.text{text-align:left;max-width:520px}
.note{color:#555;font-size:12px;margin:2px 0 10px 0}
.badge{display:inline-block;padding:4px 12px;border-radius:4px;font-weight:bold;color:#fff}
.PASS{background:#2e7d32}.FAIL{background:#c62828}.NOGATES,.NOTEVALUATED{background:#757575}
.error{color:#b71c1c;font-weight:bold}.warning{color:#e65100}.info{color:#455a64}
.vFAIL,.vinterference,.vdifferent{background:#ffcdd2}.vPASS,.vnointerference,.vnodifference{background:#c8e6c9}
.vinconclusive,.vdrift{background:#ffe0b2}
figure{margin:14px 0} figure img{max-width:100%;border:1px solid #ddd}
figcaption{font-size:13px;color:#333;margin-bottom:4px;font-weight:bold}
details summary{cursor:pointer;font-weight:bold;margin:8px 0}
"""

TEXT_COLS = {"sentence", "evidence", "gates", "reasons", "detail", "reason", "value", "KPI", "event", "verdict"}


def table_html(t: Table) -> str:
    head = "".join(("<th class=\"text\">" if h in TEXT_COLS else "<th>") + html.escape(h) + "</th>"
                   for h in t.headers)
    body = []
    for row in t.rows:
        cells = []
        for h, cell in zip(t.headers, row):
            cls = []
            if h in TEXT_COLS:
                cls.append("text")
            if h in ("verdict", "result"):
                cls.append("v" + cell.split(" (")[0].replace(" ", ""))
            attr = f' class="{" ".join(cls)}"' if cls else ""
            cells.append(f"<td{attr}>{html.escape(cell)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    note = f'<p class="note">{html.escape(t.note)}</p>' if t.note else ""
    return (f'<h3 id="{html.escape(t.key)}">{html.escape(t.title)}</h3><table><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table>{note}')


def img(title: str, data: bytes) -> str:
    uri = "data:image/png;base64," + base64.b64encode(data).decode()
    return f'<figure><figcaption>{html.escape(title)}</figcaption><img alt="{html.escape(title)}" src="{uri}"></figure>'


def warnings_html(res: dict) -> str:
    items = [f'<li class="{w["level"]}">[{w["level"]}] {html.escape(w["scope"])}: {html.escape(w["message"])}</li>'
             for w in res["warnings"]]
    flags = [f'<li class="warning">{html.escape(f)}</li>' for f in res["noise_flags"]]
    return ("<h2 id=\"warnings\">Warnings (what makes a number doubtful)</h2>"
            + (f"<ul>{''.join(items)}</ul>" if items else "<p>none</p>")
            + "<h3>Host noise flags</h3>" + (f"<ul>{''.join(flags)}</ul>" if flags else "<p>none</p>"))


def page(title: str, res: dict, tables: list[Table], plots: list[dict], notes: list[str]) -> str:
    camp = res["campaign"]
    overall = res["overall"]
    sections = {t.key: t for t in tables}
    order_top = ["verdicts", "gates", "stability", "stats", "deadlines", "outliers", "rampup"]
    top = [table_html(sections[k]) for k in order_top if k in sections]
    timeline = [table_html(t) for t in tables if t.key.startswith(("timeline-", "transitions-"))]
    rest = [table_html(sections[k]) for k in ("evt",) if k in sections]
    detail = [table_html(sections[k]) for k in ("stats_runs", "runs", "host") if k in sections]
    figs = "".join(img(p["title"], p["png"]) for p in plots)
    opts = res.get("options") or {}
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>{CSS}</style></head><body>
<h1>{html.escape(title)}</h1>
<p>{html.escape(res.get('description') or '')}</p>
<p><span class="badge {overall.replace(' ', '')}">{html.escape(overall)}</span>
 campaign <b>{html.escape(str(camp.get('id')))}</b>, created {html.escape(str(camp.get('created_at'))[:19])},
 xtalk {html.escape(str(camp.get('xtalk_version')))}, {len(res['runs'])} runs.
 Warm-up samples {'included' if opts.get('include_warmup') else 'excluded'};
 detected ramp-up {'excluded' if opts.get('exclude_rampup') else 'kept'}; outliers never trimmed.</p>
{warnings_html(res)}
<h2>Results</h2>
{''.join(top)}
{'<h2>Timeline</h2>' + ''.join(timeline) if timeline else ''}
<h2>Worst case</h2>
{''.join(rest)}
<h2>Plots</h2>
{figs}
<h2>Details</h2>
{''.join(detail)}
<h2>Methods</h2>
<ul>{''.join(f'<li>{html.escape(n)}</li>' for n in notes)}</ul>
</body></html>
"""
