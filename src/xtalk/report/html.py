"""One self-contained HTML page: inline CSS, every static plot an embedded data: URI PNG,
the interactive time plots' library and data inline (no external reference of any
kind: it opens offline, can be archived or attached as it is).

The page opens with the headline (headline.py: the runs, the strongest verdict, each
metric's worst case against its deadline; the gates a small badge, only where the spec has
gates), then renders the report's sections (sections.py) in their order, under their
headings, each in a <div data-section="KEY">: the answer first (verdict per metric and
configuration, each guest's overhead against the bare machine where the backend is a
dimension, with the plots of the answer: the headline, a sweep over sizes, the overhead),
then everything that makes a number doubtful (grouped, counted, linked to the rows it
concerns), the setup, the detailed tables; the other plots and the interactive time plots
before the details; the glossary and the methods last.
"""
from __future__ import annotations

import base64
import html

from .answer import Doubt
from .headline import lines
from .glossary import TERMS
from .sections import Report, Section
from .tables import Table

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:20px 24px;color:#222;max-width:1400px}
h1{font-size:1.5em;margin:0 0 4px 0} h2{margin-top:28px;border-bottom:1px solid #ccc;padding-bottom:3px}
table{border-collapse:collapse;margin:6px 0 4px 0;font-size:12px}
.scroll{overflow-x:auto;max-width:100%}
th,td{border:1px solid #ccc;padding:3px 7px;text-align:right;vertical-align:top}
th{background:#f2f2f2} td:first-child,th:first-child{text-align:left}
th[title]{text-decoration:underline dotted;cursor:help}
td.text,th.text{text-align:left;max-width:560px}
.note{color:#555;font-size:12px;margin:2px 0 10px 0}
.badge{display:inline-block;padding:3px 10px;border-radius:4px;font-weight:bold;color:#fff}
.PASS{background:#2e7d32}.FAIL{background:#c62828}.NOTEVALUATED{background:#757575}
#headline{margin:8px 0 6px 0} #headline .badge{font-size:13px;padding:2px 8px}
.hl{display:flex;align-items:baseline;font-size:19px;line-height:1.35;margin:4px 0;padding:5px 12px;
border-left:6px solid #90a4ae;background:#f5f7f8}
.hl a{color:inherit;text-decoration:none} .hl a:hover{text-decoration:underline}
.hl-label{flex:0 0 110px;font-size:13px;font-weight:bold;text-transform:uppercase;color:#555}
.hl-verdict{font-weight:bold;font-size:21px} .hl-more{margin:2px 0;font-size:14px}
.hl.bad{border-color:#c62828;background:#ffebee}.hl.warn{border-color:#ef6c00;background:#fff3e0}
.hl.good{border-color:#2e7d32;background:#e8f5e9}
.error{color:#b71c1c;font-weight:bold}.warning{color:#e65100}.info{color:#455a64}
.vFAIL,.vinterference,.vdifferent,.voverhead{background:#ffcdd2}
.vPASS,.vno-interference,.vno-difference,.vno-overhead{background:#c8e6c9}
.vinconclusive,.vdrift{background:#ffe0b2}.vbaseline{background:#eceff1}
table.answer td{font-size:13px} table.answer td.verdict{text-align:left;font-weight:bold}
table.answer td:nth-child(-n+4),table.answer th:nth-child(-n+4){text-align:left}
figure{margin:12px 0} figure img{max-width:100%;border:1px solid #ddd}
figcaption{font-size:13px;color:#333;margin-bottom:4px;font-weight:bold}
details summary{cursor:pointer;margin:6px 0} ul.doubts>li{margin:4px 0}
.xt-chart{margin:8px 0 18px 0}
dl.glossary dt{font-weight:bold;margin-top:6px} dl.glossary dd{margin-left:18px}
"""

TEXT_COLS = {"sentence", "evidence", "gates", "reasons", "detail", "reason", "value", "KPI", "event", "verdict",
             "state"}


def _th(h: str) -> str:
    tip = TERMS.get(h) or TERMS.get(h.split(" [")[0])
    cls = ' class="text"' if h in TEXT_COLS else ""
    title = f' title="{html.escape(tip)}"' if tip else ""
    return f"<th{cls}{title}>{html.escape(h)}</th>"


def _rows(t: Table, cols: list[int]) -> str:
    body = []
    for row in t.rows:
        cells = []
        for i in cols:
            h, cell = t.headers[i], row[i]
            cls = (["text"] if h in TEXT_COLS else []) + (["v" + cell.split(" (")[0].replace(" ", "")]
                                                          if h in ("verdict", "result") else [])
            attr = f' class="{" ".join(cls)}"' if cls else ""
            cells.append(f"<td{attr}>{html.escape(cell)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return "".join(body)


def table_html(t: Table) -> str:
    """A table in a scrolling box; wide ones show their main columns, the rest behind a toggle."""
    note = f'<p class="note">{html.escape(t.note)}</p>' if t.note else ""

    def render(cols: list[int]) -> str:
        return (f'<div class="scroll"><table><thead><tr>{"".join(_th(t.headers[i]) for i in cols)}</tr></thead>'
                f"<tbody>{_rows(t, cols)}</tbody></table></div>")
    full = list(range(len(t.headers)))
    head = f'<h3 id="{html.escape(t.key)}">{html.escape(t.title)}</h3>'
    if t.compact and t.rows:
        compact = [t.headers.index(h) for h in t.compact if h in t.headers]
        return (head + render(compact) + f"<details><summary>all {len(full)} columns</summary>{render(full)}"
                f"</details>{note}")
    return head + render(full) + note


def img(title: str, data: bytes, ident: str = "") -> str:
    uri = "data:image/png;base64," + base64.b64encode(data).decode()
    attr = f' id="plot-{html.escape(ident)}"' if ident else ""
    return (f'<figure{attr}><figcaption>{html.escape(title)}</figcaption><img alt="{html.escape(title)}" '
            f'src="{uri}"></figure>')


def answer_html(rows: list[dict]) -> str:
    head = "".join(_th(h) for h in ("metric", "configuration", "design", "statistic", "baseline → configuration",
                                     "change [95% interval]", "noise floor", "verdict"))
    body = "".join(
        f'<tr id="{r["anchor"]}"><td>{html.escape(r["metric"])}</td>'
        f'<td title="{html.escape(r["config_id"])}">{html.escape(r["config"])}</td>'
        f'<td>{html.escape(r["design"])}</td><td>{html.escape(r["statistic"])}</td><td>{html.escape(r["values"])}</td>'
        f'<td>{html.escape(r["change"])}</td><td>{html.escape(r["floor"])}</td>'
        f'<td class="verdict v{r["verdict"]}" title="{html.escape(r["sentence"])}">{html.escape(r["text"])}</td></tr>'
        for r in rows)
    return (f'<div class="scroll"><table class="answer"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
            '</div><p class="note">Hover a verdict for its sentence; every term is in the glossary at the end.</p>')


def overhead_html(plots: list[dict]) -> str:
    """Where the backend is a dimension: what each guest costs against the bare machine."""
    return ('<h3 id="overhead-answer">Overhead: each guest against the same configuration on the bare machine</h3>'
            '<p class="note">The rows "vs native" above: the same statistics, the native runs as the reference and '
            'noise floor, times from each run\'s own counter frequency; every number in '
            '<a href="#overhead">the overhead table</a>.</p>'
            + "".join(img(p["title"], p["png"], p["id"]) for p in plots))


def doubts_html(groups: list[Doubt]) -> str:
    items = []
    for d in groups:
        links = "".join(f' <a href="#{html.escape(a)}">{html.escape(label)}</a>' for a, label in
                        dict.fromkeys(d.links))
        lis = "".join(f"<li>{html.escape(i)}</li>" for i in d.items)
        items.append(f'<li class="{d.level}">{html.escape(d.title)}: {len(d.items)}{links}'
                     f"<details><summary>show</summary><ul>{lis}</ul></details></li>")
    return (f'<ul class="doubts">{"".join(items)}</ul>' if items else "<p>nothing</p>")


def glossary_html() -> str:
    return '<dl class="glossary">' + "".join(f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>"
                                             for k, v in TERMS.items()) + "</dl>"


def section_html(s: Section) -> str:
    if s.answer is not None:
        body = answer_html(s.answer)
    elif s.doubts is not None:
        body = doubts_html(s.doubts)
    else:
        body = "".join(table_html(t) for t in s.tables)
    return f'<div data-section="{html.escape(s.key)}">{body}</div>'


HEADLINE_CLASS = {"machine": {"cannot": "bad", "doubtful": "warn", "measurable": "good"},
                  "runs": {"failed": "bad", "degraded": "warn", "passed": "good"},
                  "verdict": {"interference": "bad", "overhead": "bad", "different": "bad", "inconclusive": "warn",
                              "no-interference": "good"},
                  "worst": {"missed": "bad"}}


def headline_html(head: dict) -> str:
    """The headline (headline.py): the runs, the strongest verdict (linked to its row) and
    each metric's worst case (one box; beyond the first few folded), large, first on the
    page; the gates a small badge after it, only where the spec has gates."""
    parts: dict[str, list[tuple[str, str]]] = {}
    for part, state, _, text in lines(head):
        parts.setdefault(part, []).append((state, text))
    verdict = head["verdict"]["anchor"] or "answer"
    links = {"runs": "runs" if head["runs"]["state"] == "failed" else "", "verdict": verdict}
    out = []
    for part, label in (("machine", "machine"), ("runs", "runs"), ("verdict", "verdict"), ("worst", "worst case")):
        rows = parts.get(part) or []
        states = [state for state, _ in rows]
        tone = next((HEADLINE_CLASS.get(part, {}).get(state) for state in states
                     if HEADLINE_CLASS.get(part, {}).get(state)), "plain")
        link = links.get(part)
        texts = [f'<a href="#{html.escape(link)}">{html.escape(text)}</a>' if link else html.escape(text)
                 for _, text in rows]
        more = [f"<li>{html.escape(text)}</li>" for _, text in parts.get("worst-more", [])] if part == "worst" else []
        fold = (f'<details class="hl-more"><summary>worst case of {len(more)} more metric{"s" if len(more) > 1 else ""}'
                f'</summary><ul>{"".join(more)}</ul></details>' if more else "")
        out.append(f'<div class="hl hl-{part} {tone}" data-headline="{part}" data-state="{html.escape(states[0])}">'
                   f'<span class="hl-label">{html.escape(label)}</span> <div>{"<br>".join(texts)}{fold}</div></div>')
    gates = head["gates"]
    badge = (f'<p data-headline="gates"><span class="badge {gates["overall"].replace(" ", "")}">'
             f'gates {html.escape(gates["text"])}</span></p>' if gates else "")
    return f'<div id="headline">{"".join(out)}{badge}</div>'


def page(report: Report, plots: list[dict], notes: list[str], interactive: str = "") -> str:
    h = report.header
    camp = h.campaign
    overhead = [p for p in plots if p["kind"] == "overhead"]
    answer = [p for p in plots if p["section"] == "answer" and p["kind"] != "overhead"]
    rest = [p for p in plots if p["section"] != "answer"]
    body = []
    for key, ident, title, sections in report.headings():
        if key == "details":
            body += ["<h2>Plots</h2>", "".join(img(p["title"], p["png"], p["id"]) for p in rest)]
            body += ['<h2 id="interactive">Time plots to zoom</h2>' + interactive] if interactive else []
        anchor = f' id="{ident}"' if ident else ""
        body.append(f"<h2{anchor}>{html.escape(title)}</h2>")
        body += [section_html(s) for s in sections]
        if key == "answer":
            body.append("".join(img(p["title"], p["png"], p["id"]) for p in answer))
            body.append(overhead_html(overhead) if any(s.key == "overhead" for s in report.computed()) else "")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(h.title)}</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<style>{CSS}</style></head><body>
<h1>{html.escape(h.title)}</h1>
{headline_html(h.headline)}
<p class="note">{html.escape(h.description) + ' — ' if h.description else ''}campaign <b>{html.escape(str(camp.get('id')))}</b>,
 {h.runs} runs, xtalk {html.escape(str(camp.get('xtalk_version')))}.
 Warm-up samples {'included' if h.include_warmup else 'excluded'}; outliers never trimmed.</p>
{chr(10).join(body)}
<h2 id="glossary">Glossary</h2>
{glossary_html()}
<h2>Methods</h2>
<ul>{''.join(f'<li>{html.escape(n)}</li>' for n in notes)}</ul>
</body></html>
"""
