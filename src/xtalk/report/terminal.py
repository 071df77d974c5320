"""The report's sections (sections.py) on a terminal, with rich, after the headline
(headline.py): `full` for `xtalk show` and `xtalk report` (every section under its heading, wide tables narrowed to their main
columns, each verdict's sentence under its table), `brief` for the end of `xtalk run`
(each section's one-line findings; the titles of the others, to see with `xtalk show`).
Sections the analysis did not compute (show and run skip what only the report needs)
are named at the end.
A table of more than RICH_ROWS rows (the runs of a campaign of thousands) is printed as
plain aligned columns: rich measures and wraps every cell (about a millisecond each), which
took minutes for 10,000 runs; the cells are the same, lines are not folded to the width.
"""
from __future__ import annotations

from rich.cells import cell_len
from rich.console import Console
from rich.table import Table as RichTable

from .headline import lines
from .sections import Report, Section
from .tables import Table

STATS = ("metric", "unit", "n", "min", "Q1", "median", "Q3", "max", "mean", "sd", "p99")
NARROW = {"evt": ("config", "metric", "status", "pWCET 1e-3", "pWCET 1e-6", "pWCET 1e-9", "reasons"),
          "stats": ("config", "runs", *STATS), "stats_runs": ("run", "config", *STATS)}
LONG = ("KPI", "gates", "sentence")  # columns told under the table instead (the sentence) or left to the report
RICH_ROWS = 100  # longer tables: plain columns (plain_table)


def columns(t: Table) -> list[int]:
    keep = NARROW.get(t.key) or [h for h in t.headers if h not in LONG]
    return [t.headers.index(h) for h in keep if h in t.headers]


def table(t: Table, out: Console) -> None:
    out.print(t.title, style="bold", soft_wrap=True)
    if not t.rows:
        out.print(f"  {t.empty}")
        return
    cols = columns(t)
    if len(t.rows) > RICH_ROWS:
        plain_table([t.headers[i] for i in cols], [[row[i] for i in cols] for row in t.rows], out)
    else:
        rich = RichTable()
        for i in cols:
            rich.add_column(t.headers[i], overflow="fold")
        for row in t.rows:
            rich.add_row(*(row[i] for i in cols))
        out.print(rich)
    if "sentence" in t.headers:
        sentence, gates = t.headers.index("sentence"), t.headers.index("gates") if "gates" in t.headers else None
        for row in t.rows:
            out.print(f"  {row[sentence]}" + (f" Gates: {row[gates]}." if gates is not None and row[gates] != "none"
                                               else ""), soft_wrap=True)


def plain_table(headers: list[str], rows: list[list[str]], out: Console) -> None:
    """Left-aligned columns two spaces apart under an underlined header, one line a row."""
    widths = [max(cell_len(c) for c in col) for col in zip(headers, *rows)]

    def line(cells) -> str:
        return "  ".join(c + " " * (w - cell_len(c)) for c, w in zip(cells, widths)).rstrip()
    text = [line(headers), line("─" * w for w in widths), *map(line, rows)]
    out.print("\n".join(text), soft_wrap=True, highlight=False)


def section(s: Section, out: Console) -> None:
    """A section's tables, or its doubts (under the heading that is its title)."""
    if s.doubts is None:
        for t in s.tables:
            table(t, out)
        return
    if not s.doubts:
        out.print("  nothing")
    for d in s.doubts:
        out.print(f"  {d.level}: {d.title}: {len(d.items)}", soft_wrap=True)
        for item in d.items:
            out.print(f"    {item}", soft_wrap=True)


def _not_computed(report: Report, out: Console, indent: str = "") -> None:
    skipped = [s.title for s in report.sections if not s.computed]
    if skipped:
        out.print(f"{indent}not computed here, see xtalk report: " + "; ".join(skipped), soft_wrap=True)


STYLES = {"failed": "bold red", "degraded": "yellow", "passed": "green", "interference": "bold red",
          "overhead": "bold red", "different": "bold red", "inconclusive": "bold yellow", "no-interference": "bold green",
          "missed": "red", "FAIL": "red", "PASS": "green", "cannot": "bold red", "doubtful": "yellow",
          "measurable": "green"}


def headline(head: dict, out: Console, indent: str = "  ") -> None:
    """The headline (headline.py), a labelled line each, coloured by what it says; the
    worst case of the metrics beyond the first few counted in one line."""
    every = lines(head)
    more = sum(part == "worst-more" for part, *_ in every)
    for i, (part, state, label, text) in enumerate(every):
        if part != "worst-more":
            label = "" if i and every[i - 1][2] == label else label + ":"
            out.print(f"{indent}{label:<12}{text}", style=STYLES.get(state), soft_wrap=True)
        elif more:
            out.print(f"{indent}{'':<12}and {more} more metric{'s' if more > 1 else ''}: see the statistics",
                      soft_wrap=True)
            more = 0


def full(report: Report, out: Console) -> None:
    h = report.header
    out.print(f"{h.campaign.get('id')} — campaign {h.campaign.get('name')!r}, created "
              f"{str(h.campaign.get('created_at'))[:19]}, {h.path}", soft_wrap=True)
    headline(h.headline, out)
    for _, _, title, sections in report.headings():
        out.rule(title)
        for s in sections:
            section(s, out)
    _not_computed(report, out)


def brief(report: Report, out: Console) -> None:
    rest = []
    for s in report.computed():
        if s.brief:
            out.print(f"  {s.title}:", soft_wrap=True)
        for line in s.brief:
            out.print(f"    {line}", soft_wrap=True)
        if not s.brief:
            rest.append(s.title)
    out.print("  also: " + "; ".join(rest), soft_wrap=True)
    _not_computed(report, out, "  ")
