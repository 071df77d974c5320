"""The report's sections of every campaign: the answer, the doubts, the setup, the results
in detail, the timeline, the worst case and the details (sections/__init__.py says what a
section is)."""
from __future__ import annotations

from pathlib import Path

from ...analysis import wording
from ...analysis.boards import reference_board
from ...analysis.overhead import BARE
from ..answer import Doubt, answer_rows, doubts
from ..fleet_boards import board_doubts
from ..headline import worst_part
from ..instrument import instrument_brief, instrument_table, runs_with_instrument
from ..second_config import second_config_hint
from ..setup import exposure_table, low_exposure, setup_table
from ..tables import (Table, boards_table, deadline_table, evt_table, gate_table, host_table, left_out_table,
                      outlier_table, overhead_table, rampup_table, runs_table, stability_table, stats_table,
                      timeline_tables, verdict_table)
from . import HEADINGS, Check, Section, add, rows, table


def _answer(res: dict) -> Section:
    rows = answer_rows(res, [w["metric"] for w in worst_part(res)])
    verdicts = Table("answer", "Verdict per metric and configuration",
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
    return Section("answer", verdicts.title, "answer", ("verdicts", "overhead", "boards"), [verdicts], rows, brief=brief)


def _doubts(res: dict) -> Section:
    groups = board_doubts(res) + doubts(res)
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


def _timelines(res: dict) -> Section:
    return Section("timelines", "Timeline segments and transitions", "timeline", ("timelines",),
                   timeline_tables(res["timelines"]))


def _timeline_spec(res: dict) -> bool:
    """Whether a full analysis shows timelines: the spec has a timeline, not a paired design."""
    spec = res.get("spec") or {}
    return bool(spec.get("timeline")) and not spec.get("paired")


add("answer", 10, _answer)
add("doubts", 20, _doubts)
add("setup", 30, table("setup", "setup", ("spec", "host"), setup_table))
add("exposure", 40, table("exposure", "setup", ("runs",), exposure_table), lambda res: bool(exposure_table(res).rows))
add("gates", 70, _gates, rows("gates"))
add("stability", 80, table("stability", "detail", ("stability",), lambda res: stability_table(res["stability"])),
    rows("stability"), "extras")
add("stats", 90, table("stats", "detail", ("stats",), lambda res: stats_table(res["stats"], res["units"])))
add("deadlines", 100, table("deadlines", "detail", ("deadlines",), lambda res: deadline_table(res["deadlines"])),
    rows("deadlines"))
add("instrument", 110, _instrument, lambda res: bool(runs_with_instrument(res)))
add("outliers", 120, table("outliers", "detail", ("outliers",),
                           lambda res: outlier_table(res["outliers"], res["units"])), needs="extras")
add("rampup", 130, table("rampup", "detail", ("rampup", "rampup_excluded"),
                         lambda res: rampup_table(res["rampup"], res["rampup_excluded"], res["units"])), needs="extras")
add("verdicts", 140, table("verdicts", "detail", ("verdicts",), lambda res: verdict_table(res["verdicts"])))
add("overhead", 150, table("overhead", "detail", ("overhead",), lambda res: overhead_table(res["overhead"])),
    rows("overhead"))
add("boards", 160, table("boards", "detail", ("boards",), lambda res: boards_table(res["boards"])), rows("boards"))
add("timelines", 170, _timelines, rows("timelines"), "extras", _timeline_spec)
add("evt", 180, table("evt", "worst", ("evt",), lambda res: evt_table(res["evt"], res["units"])), needs="evt")
add("stats_runs", 190, table("stats_runs", "details", ("stats_runs",),
                             lambda res: stats_table(res["stats_runs"], res["units"], per_run=True)))
add("runs", 200, table("runs", "details", ("runs",), lambda res: runs_table(res["runs"])))
add("left_out", 210, table("left_out", "details", ("left_out",), lambda res: left_out_table(res["left_out"])),
    rows("left_out"))
add("host", 220, table("host", "details", ("host",), lambda res: host_table(res["host"])))
