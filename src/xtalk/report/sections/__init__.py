"""The report of one campaign as typed data: a header and an ordered list of sections,
built once from the analysis result and rendered by every output (terminal: `xtalk show`,
`xtalk report` and `xtalk run`'s summary; HTML, Markdown, report.json, JUnit). A section
is registered (`add`) in a module of this package (core.py: the campaign's own; one module
a study: interference.py), found as the plug-ins are (xtalk.plugins), and appears in all
of them.

Each section knows its key (the HTML anchor, its entry in report.json's `sections`), its
title, the heading it sits under, the report.json keys holding its data, and its content:
tables, the answer's rows, grouped doubts, pass/fail checks (JUnit) and the one-line
findings the run summary prints. A section that needs what the analysis skipped
(Options.extras, Options.evt: `show` and `run` skip them for speed) is kept, marked not
computed, so the terminal names it; the report always computes everything.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from ...plugins import Plugins
from ..answer import Doubt
from ..headline import headline
from ..tables import Table

if TYPE_CHECKING:
    from ...analysis.pipeline import Options


@dataclass
class Check:
    """A pass/fail test of the campaign (a KPI gate): one JUnit testcase."""
    group: str      # what it checks (the metric)
    name: str
    passed: bool
    detail: str


@dataclass
class Section:
    key: str
    title: str
    heading: str                  # key of the HEADINGS entry it sits under
    data: tuple[str, ...]         # the report.json keys that hold its data
    tables: list[Table] = field(default_factory=list)
    answer: list[dict] | None = None      # answer.answer_rows: the answer, styled (tables hold it plain)
    doubts: list[Doubt] | None = None     # warnings and noise flags, grouped
    checks: list[Check] = field(default_factory=list)
    brief: list[str] = field(default_factory=list)      # its findings in one line each (run summary)
    computed: bool = True

    def json(self) -> dict:
        return {"key": self.key, "title": self.title, "heading": self.heading, "data": list(self.data)}


@dataclass
class Header:
    title: str
    campaign: dict            # id, name, created_at, xtalk_version...
    description: str
    overall: str
    runs: int
    path: str
    include_warmup: bool
    exclude_rampup: bool
    headline: dict            # headline.headline: runs, strongest verdict, worst case, gates


@dataclass
class Report:
    header: Header
    sections: list[Section]
    heading_titles: dict[str, tuple[str, str]]  # heading key: (HTML id, title)

    def computed(self) -> list[Section]:
        return [s for s in self.sections if s.computed]

    def headings(self) -> list[tuple[str, str, str, list[Section]]]:
        """(key, HTML id, title, its computed sections) in order, headings without any left out."""
        out = []
        for key, (ident, title) in self.heading_titles.items():
            group = [s for s in self.computed() if s.heading == key]
            if group:
                out.append((key, ident, title, group))
        return out


HEADINGS = {  # key: (HTML id, title); the answer's title says "and the hypervisor" where it has overhead rows
    "answer": ("answer", "The answer"),
    "doubts": ("doubts", "What makes a number doubtful"),
    "setup": ("setup-section", "Setup"),
    "detail": ("", "Results in detail"),
    "timeline": ("", "Timeline"),
    "worst": ("", "Worst case"),
    "details": ("", "Details"),
}


def always(res: dict) -> bool:
    return True


@dataclass
class Entry:
    """A section of the report: where it sits (`order`), how it is made from the result,
    whether the result has it, the Options flag that computes it ("extras" or "evt"), and
    whether a full analysis would have it."""

    key: str
    order: int
    make: Callable[[dict], Section]
    present: Callable[[dict], bool] = always
    needs: str | None = None
    possible: Callable[[dict], bool] = always


SECTIONS = Plugins("report section", __name__, key="key")


def add(key: str, order: int, make: Callable[[dict], Section], present: Callable[[dict], bool] = always,
        needs: str | None = None, possible: Callable[[dict], bool] = always) -> None:
    """Register the section `key` (made by `make`) at `order` in the report."""
    SECTIONS.register(Entry(key, order, make, present, needs, possible))


def table(key: str, heading: str, data: tuple[str, ...], make: Callable[[dict], Table]) -> Callable[[dict], Section]:
    """The maker of a section that is one table."""
    def section(res: dict) -> Section:
        made = make(res)
        return Section(key, made.title, heading, data, [made])
    return section


def rows(key: str) -> Callable[[dict], bool]:
    """Whether the result has rows under `key`."""
    return lambda res: bool(res[key])


def report_of(res: dict, options: Options) -> Report:
    """The report of an analysis result computed with `options`: a section the options
    skipped is kept, marked not computed, where a full analysis would have it."""
    sections = []
    for entry in sorted(SECTIONS.by_name().values(), key=lambda e: e.order):
        skipped = (entry.needs == "extras" and not options.extras) or (entry.needs == "evt" and not options.evt)
        if skipped and entry.possible(res):
            section = entry.make(res)
            section.computed = False
            sections.append(section)
        elif not skipped and entry.present(res):
            sections.append(entry.make(res))
    camp = res["campaign"]
    opts = res.get("options") or {}
    header = Header(f"xtalk report: {camp.get('name')}", camp, res.get("description") or "", res["overall"],
                    len(res["runs"]), res.get("path") or "", bool(opts.get("include_warmup")),
                    bool(opts.get("exclude_rampup")), headline(res))
    headings = dict(HEADINGS, answer=("answer", "The answer: what the neighbours"
                                      + (" and the hypervisor" if res["overhead"] else "")
                                      + " change, by how much, how sure"))
    return Report(header, sections, headings)
