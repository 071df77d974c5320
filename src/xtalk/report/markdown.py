"""The report as Markdown (GitHub-flavoured tables); plots are linked as PNG files
written next to it (plots/), since Markdown viewers do not all show data: URIs."""
from __future__ import annotations

from .answer import answer_rows, doubts
from .glossary import TERMS
from .tables import Table


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def table_md(t: Table) -> str:
    lines = [f"### {t.title}", "", "| " + " | ".join(map(_cell, t.headers)) + " |",
             "|" + "|".join("---" for _ in t.headers) + "|"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in t.rows]
    if t.note:
        lines += ["", f"_{t.note}_"]
    return "\n".join(lines) + "\n"


def document(title: str, res: dict, tables: list[Table], plot_files: list[tuple[str, str]], notes: list[str]) -> str:
    camp = res["campaign"]
    out = [f"# {title}", "", res.get("description") or "", "",
           f"**Overall: {res['overall']}** — campaign `{camp.get('id')}`, created {str(camp.get('created_at'))[:19]}, "
           f"{len(res['runs'])} runs; warm-up samples {'included' if res['options'].get('include_warmup') else 'excluded'}, "
           f"ramp-up {'excluded' if res['options'].get('exclude_rampup') else 'kept'}, outliers never trimmed.", "",
           "## The answer", ""]
    answer = Table("answer", "Verdict per metric and configuration",
                   ["metric", "configuration", "design", "statistic", "baseline → configuration",
                    "change [95% interval]", "noise floor", "verdict"],
                   [[r[k] for k in ("metric", "config", "design", "statistic", "values", "change", "floor", "text")]
                    for r in answer_rows(res)])
    out += [table_md(answer), "## What makes a number doubtful", ""]
    for d in doubts(res):
        out += [f"- **{d.title}**: {len(d.items)}"] + [f"  - {_cell(i)}" for i in d.items]
    out += ["", "## Results", ""] + [table_md(t) for t in tables]
    if plot_files:
        out += ["## Plots", ""] + [f"![{title}]({path})" for title, path in plot_files] + [""]
    out += ["## Glossary", ""] + [f"- **{k}**: {v}" for k, v in TERMS.items()] + [""]
    out += ["## Methods", ""] + [f"- {n}" for n in notes]
    return "\n".join(out) + "\n"
