"""`tail`: a test-only study, kept outside xtalk's package to prove that a study is one
module: an analysis stage (xtalk.analysis.stages) and a report section
(xtalk.report.sections) it registers itself, found through an installed distribution's
entry points (tail_distribution). Its key, `tail`, is each configuration's and metric's
maximum over its median, from the statistics stage's rows; its section is one table
among the results in detail."""
from __future__ import annotations

from pathlib import Path

from tests.framework.plugin_distribution import installed
from xtalk.analysis.result import Rows
from xtalk.analysis.stages import STAGES, Pass, stage
from xtalk.report.sections import SECTIONS, add, rows, table
from xtalk.report.tables import Table


@stage("tail", 215, Rows)
def tail(p: Pass) -> Rows:
    return [{"config_id": r["config_id"], "metric": r["metric"], "max_over_median": r["max"] / r["median"]}
            for r in p.per_config if r.get("median")]


def tail_table(res: dict) -> Table:
    return Table("tail", "Tail: the maximum over the median", ["configuration", "metric", "max / median"],
                 [[r["config_id"], r["metric"], f"{r['max_over_median']:.3f}"] for r in res["tail"]])


add("tail", 225, table("tail", "detail", ("tail",), tail_table), rows("tail"))


def tail_distribution(where: Path) -> Path:
    """A directory that, on the Python path, is an installed distribution declaring this
    study in the entry point groups of the analysis's stages and the report's sections."""
    return installed(where, "xtalk-tail-study", {STAGES.group: __name__, SECTIONS.group: __name__})
