"""The report as Markdown (GitHub-flavoured tables): the headline (headline.py) under the
title, then the report's sections (sections.py) in their order under their headings; plots are linked as PNG files written next to it
(plots/), since Markdown viewers do not all show data: URIs. The spec's description is
the user's text: shown as text (HTML escaped, terminal escapes and control characters
dropped), never as markup a viewer runs or a terminal obeys."""
from __future__ import annotations

import html

from ..controls import printable
from .glossary import TERMS
from .headline import lines
from .sections import Report, Section
from .tables import Table


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def plain_text(text: str) -> str:
    """Text of the user's as Markdown shows it: printable (controls.py: no terminal escapes,
    control or invisible format characters; newlines and tabs kept), HTML escaped."""
    return html.escape(printable(text), quote=False)


def table_md(t: Table) -> str:
    lines = [f"### {t.title}", "", "| " + " | ".join(map(_cell, t.headers)) + " |",
             "|" + "|".join("---" for _ in t.headers) + "|"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in t.rows]
    if t.note:
        lines += ["", f"_{t.note}_"]
    return "\n".join(lines) + "\n"


def section_md(s: Section) -> list[str]:
    if s.doubts is not None:
        return [line for d in s.doubts for line in [f"- **{d.title}**: {len(d.items)}"]
                + [f"  - {_cell(i)}" for i in d.items]] + [""]
    return [table_md(t) for t in s.tables]


def headline_md(head: dict) -> list[str]:
    """The headline (headline.py), one bold-labelled line each; the runs and the verdict in bold."""
    out, last = [], ""
    for part, _, label, text in lines(head):
        text = _cell(plain_text(text))
        if part.startswith("worst"):
            out += [f"- **{label.capitalize()}:**"] * (last != label) + [f"  - {text}"]
        else:
            out.append(f"- **{label.capitalize()}:** " + (f"**{text}**" if part in ("runs", "verdict") else text))
        last = label
    return out


def document(report: Report, plot_files: list[tuple[str, str]], notes: list[str]) -> str:
    h = report.header
    out = [f"# {h.title}", ""] + headline_md(h.headline) + ["", plain_text(h.description), "",
           f"Campaign `{h.campaign.get('id')}`, created "
           f"{str(h.campaign.get('created_at'))[:19]}, {h.runs} runs; warm-up samples "
           f"{'included' if h.include_warmup else 'excluded'}, ramp-up {'excluded' if h.exclude_rampup else 'kept'}, "
           "outliers never trimmed.", ""]
    for _, _, title, sections in report.headings():
        out += [f"## {title}", ""] + [line for s in sections for line in section_md(s)]
    if plot_files:
        out += ["## Plots", ""] + [f"![{title}]({path})" for title, path in plot_files] + [""]
    out += ["## Glossary", ""] + [f"- **{k}**: {v}" for k, v in TERMS.items()] + [""]
    out += ["## Methods", ""] + [f"- {n}" for n in notes]
    return "\n".join(out) + "\n"
