"""The terminal's tables (report/terminal.py): a short one drawn by rich, a long one (the
runs of a large campaign) as plain aligned columns with every cell of every row."""
import io

from rich.console import Console

from xtalk.report import terminal
from xtalk.report.tables import Table


def printed(t: Table) -> list[str]:
    buf = io.StringIO()
    terminal.table(t, Console(file=buf, width=80, markup=False))
    return buf.getvalue().splitlines()


def runs_table(n: int) -> Table:
    return Table("runs", "Runs", ["run", "config", "status", "reason"],
                 [[f"solo-r{i}", "solo", "pass", "[µs] wide reason " * (i == 3)] for i in range(1, n + 1)])


def test_short_table_drawn_by_rich():
    lines = printed(runs_table(3))
    assert lines[0] == "Runs" and lines[1].startswith("┏") and any("solo-r3" in line for line in lines)


def test_long_table_plain_columns_aligned_every_row_kept():
    n = terminal.RICH_ROWS + 1
    lines = printed(runs_table(n))
    assert lines[:3] == ["Runs", "run        config  status  reason",
                         "─────────  ──────  ──────  " + "─" * len("[µs] wide reason ")]
    assert len(lines) == 3 + n and lines[3] == "solo-r1    solo    pass"
    assert lines[5] == "solo-r3    solo    pass    [µs] wide reason"
    assert lines[-1] == f"solo-r{n}  solo    pass"
