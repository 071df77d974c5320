"""The design check as `xtalk spec check` and `xtalk run --dry-run` print it (xtalk.design):
a table per configuration, the notes, the estimated wall time; a design that cannot
decide raises its SpecError (exit 2) after the table is shown. `xtalk run` runs it and
warns (`warn_design`)."""
from __future__ import annotations

from rich.table import Table

import sys

from ..errors import SpecError
from .common import console


def _seconds(s: float) -> str:
    return f"{s:.0f} s" if s < 120 else f"{s / 60:.0f} min" if s < 7200 else f"{s / 3600:.1f} h"


def _size(noise, sds: float) -> str:
    pct = noise.change_pct(sds)
    if pct is None:
        return f"±{sds * noise.sd:.3g}"
    return f"±{pct:.3g} %" if abs(pct) < 1000 else f"±{pct:,.0f} %"


def _detects(row) -> str:
    if row.design == "reference":
        return "-"
    if row.detects_sd is None:
        return "nothing (no spread to measure)"
    unit = "a run's value" if row.unit_word == "runs" else "a window's on/off difference"
    return f"{row.detects_sd:.2g} sd of {unit}"


def design_table(design, spec_name: str) -> Table:
    table = Table(title=f"{spec_name}: design (alpha {design.alpha:g})")
    for col in ("configuration", "judged against", "units", "test", "smallest exact p", "verdict possible",
                "detects (80 % power)", "a run"):
        table.add_column(col)
    for r in design.rows:
        units = "-" if r.design == "reference" else (
            f"{r.units[0]} vs {r.units[1]} runs" if r.unit_word == "runs" else f"{r.units[0]} windows in {r.runs} runs")
        table.add_row(r.config_id, r.reference, units, r.test, "-" if r.design == "reference" else f"{r.exact_min_p:.2g}",
                      "-" if r.design == "reference" else "yes" if r.decides else "NO", _detects(r),
                      f"about {_seconds(design.run_s.get(r.config_id, 0))}")
    return table


def print_design(design, spec, path: str, runs: int) -> None:
    """The table and notes; the design's problems raised as one SpecError."""
    out = console(markup=False)
    out.print(design_table(design, spec.name))
    for note in design.notes:
        out.print(f"note: {note}")
    for n in design.noise:
        detects = ", ".join(f"{r.config_id} {_size(n, r.detects_sd)}" for r in design.detected(n))
        what = "a run" if n.unit_word == "runs" else "a window's on/off difference"
        out.print(f"noise of {n.metric} ({n.statistic}): sd {_size(n, 1.0)} of {what}, from {n.units} "
                  f"{n.unit_word} of {n.source} on this host" + (f"; detects {detects}" if detects else ""))
    if not design.noise:
        out.print("noise: sd is the spread of one unit's value, a fact of this host and backend, not of the spec; "
                  f"none stored here for this spec: `xtalk calibrate {path}` measures it (its minimum detectable "
                  "effect in %), or a first campaign of this spec does")
    how = f"boot and teardown as the runs of {design.timed_by} took" if design.timed_by else "boot times are guesses"
    out.print(f"wall time: about {_seconds(design.total_s)} for {runs} run(s) ({how})")
    if design.problems:
        raise SpecError(path, design.problems)


def warn_design(design) -> None:
    """`xtalk run`: the design's problems as warnings on stderr, the campaign still runs."""
    for problem in design.problems:
        print(f"xtalk: warning: {problem}", file=sys.stderr)
