"""The report of one campaign as typed data: a header and an ordered list of sections,
built once from the analysis result and rendered by every output (terminal: `xtalk show`,
`xtalk report` and `xtalk run`'s summary; HTML, Markdown, report.json, JUnit). A new
section is one entry in `SECTIONS` and appears in all of them.

Each section knows its key (the HTML anchor, its entry in report.json's `sections`), its
title, the heading it sits under, the report.json keys holding its data, and its content:
tables, the answer's rows, grouped doubts, pass/fail checks (JUnit) and the one-line
findings the run summary prints. A section that needs what the analysis skipped
(Options.extras, Options.evt: `show` and `run` skip them for speed) is kept, marked not
computed, so the terminal names it; the report always computes everything.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ..analysis import wording
from ..analysis.boards import reference_board
from ..analysis.overhead import BARE

if TYPE_CHECKING:
    from ..analysis.pipeline import Options
from .answer import Doubt, answer_rows, doubts
from .interference import channel_table, search_table
from .headline import headline
from .instrument import instrument_brief, instrument_table, runs_with_instrument
from .second_config import second_config_hint
from .setup import exposure_table, low_exposure, setup_table
from .tables import (Table, boards_table, deadline_table, evt_table, gate_table, host_table, left_out_table,
                     outlier_table, overhead_table, rampup_table, runs_table, stability_table, stats_table,
                     timeline_tables, verdict_table)


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


def _answer(res: dict) -> Section:
    rows = answer_rows(res)
    table = Table("answer", "Verdict per metric and configuration",
                  ["metric", "configuration", "design", "statistic", "baseline → configuration",
                   "change [95% interval]", "noise floor", "verdict"],
                  [[r[k] for k in ("metric", "config", "design", "statistic", "values", "change", "floor", "text")]
                   for r in rows])
    reference = reference_board(res["configs"])
    brief = ([f"{v['config_id']} / {v['metric']}: {wording.short(v, v.get('unit_word', 'runs'))}" for v in res["verdicts"]]
             + [f"{v['config_id']} / {v['metric']} against {BARE}: {wording.short(v)}" for v in res["overhead"]
                if v["verdict"] != "baseline"]
             + [f"{v['config_id']} / {v['metric']} against {reference}: {wording.short(v)}" for v in res["boards"]
                if v["verdict"] != "baseline"])
    return Section("answer", table.title, "answer", ("verdicts", "overhead", "boards"), [table], rows, brief=brief)


def _doubts(res: dict) -> Section:
    groups = doubts(res)
    idle = low_exposure(res)
    if idle:
        groups.insert(0, Doubt("stressors idle for a noticeable share of a non-solo run", "warning", idle))
    hint = second_config_hint(res["campaign"].get("name") or "NAME", res.get("spec") or {}, res["configs"],
                              str(Path(res.get("path") or "results/x").parent))
    if hint:
        groups.insert(0, Doubt("no second configuration to compare with", "info", [hint]))
    return Section("doubts", HEADINGS["doubts"][1], "doubts", ("warnings", "noise_flags"), doubts=groups,
                   brief=[f"{d.level}: {d.title}: {len(d.items)}" for d in groups])


def _gates(res: dict) -> Section:
    checks = [Check(g["metric"], f"{g['stat']} [{g['config_id']}] "
                    + ", ".join(f"{k}={v}" for k, v in g["gate"].items() if k not in ("metric", "stat")),
                    g["passed"], g["detail"]) for g in res["gates"]]
    brief = [f"gate {g['metric']} {g['stat']} [{g['config_id']}]: {'pass' if g['passed'] else 'FAIL'} ({g['detail']})"
             for g in res["gates"]]
    return Section("gates", "KPI gates of the spec", "detail", ("gates",), [gate_table(res["gates"])],
                   checks=checks, brief=brief)


def _instrument(res: dict) -> Section:
    return Section("instrument", "Instrument per run", "detail", ("runs",), [instrument_table(res)],
                   brief=instrument_brief(res))


def _table(key: str, heading: str, data: tuple[str, ...], make: Callable[[dict], Table]) -> Callable[[dict], Section]:
    def section(res: dict) -> Section:
        table = make(res)
        return Section(key, table.title, heading, data, [table])
    return section


def _timelines(res: dict) -> Section:
    return Section("timelines", "Timeline segments and transitions", "timeline", ("timelines",),
                   timeline_tables(res["timelines"]))


def always(res: dict) -> bool:
    return True


@dataclass
class Entry:
    make: Callable[[dict], Section]
    present: Callable[[dict], bool] = always    # whether the result has it
    needs: str | None = None                     # "extras" or "evt": the Options flag that computes it
    possible: Callable[[dict], bool] = always   # whether a full analysis would have it


def _timeline_spec(res: dict) -> bool:
    """Whether a full analysis shows timelines: the spec has a timeline, not a paired design."""
    spec = res.get("spec") or {}
    return bool(spec.get("timeline")) and not spec.get("paired")


def _rows(key: str) -> Callable[[dict], bool]:
    return lambda res: bool(res[key])


SECTIONS = [  # in report order
    Entry(_answer),
    Entry(_doubts),
    Entry(_table("setup", "setup", ("spec", "host"), setup_table)),
    Entry(_table("exposure", "setup", ("runs",), exposure_table), lambda res: bool(exposure_table(res).rows)),
    Entry(_table("search", "answer", ("search", "study"), search_table), _rows("search")),
    Entry(_table("channels", "answer", ("channels", "study"), lambda res: channel_table(res["channels"])),
          _rows("channels")),
    Entry(_gates, _rows("gates")),
    Entry(_table("stability", "detail", ("stability",), lambda res: stability_table(res["stability"])),
          _rows("stability"), "extras"),
    Entry(_table("stats", "detail", ("stats",), lambda res: stats_table(res["stats"], res["units"]))),
    Entry(_table("deadlines", "detail", ("deadlines",), lambda res: deadline_table(res["deadlines"])),
          _rows("deadlines")),
    Entry(_instrument, lambda res: bool(runs_with_instrument(res))),
    Entry(_table("outliers", "detail", ("outliers",), lambda res: outlier_table(res["outliers"], res["units"])), needs="extras"),
    Entry(_table("rampup", "detail", ("rampup", "rampup_excluded"),
                 lambda res: rampup_table(res["rampup"], res["rampup_excluded"], res["units"])), needs="extras"),
    Entry(_table("verdicts", "detail", ("verdicts",), lambda res: verdict_table(res["verdicts"]))),
    Entry(_table("overhead", "detail", ("overhead",), lambda res: overhead_table(res["overhead"])),
          _rows("overhead")),
    Entry(_table("boards", "detail", ("boards",), lambda res: boards_table(res["boards"])), _rows("boards")),
    Entry(_timelines, _rows("timelines"), "extras", _timeline_spec),
    Entry(_table("evt", "worst", ("evt",), lambda res: evt_table(res["evt"], res["units"])), needs="evt"),
    Entry(_table("stats_runs", "details", ("stats_runs",),
                 lambda res: stats_table(res["stats_runs"], res["units"], per_run=True))),
    Entry(_table("runs", "details", ("runs",), lambda res: runs_table(res["runs"]))),
    Entry(_table("left_out", "details", ("left_out",), lambda res: left_out_table(res["left_out"])),
          _rows("left_out")),
    Entry(_table("host", "details", ("host",), lambda res: host_table(res["host"]))),
]


def report_of(res: dict, options: Options) -> Report:
    """The report of an analysis result computed with `options`: a section the options
    skipped is kept, marked not computed, where a full analysis would have it."""
    sections = []
    for entry in SECTIONS:
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
