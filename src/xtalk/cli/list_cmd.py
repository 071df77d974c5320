"""`xtalk list`: the campaigns in a results directory, the unreadable ones among them
(campaign.json, or some of their runs) with what is wrong."""
from __future__ import annotations

from rich.table import Table
from rich.text import Text

from ..results.store import catalog
from .common import add_out, console


def add_parser(sub) -> None:
    p = sub.add_parser("list", help="list stored campaigns")
    add_out(p)
    p.set_defaults(handler=run)


def run(args) -> int:
    table = Table(title=f"campaigns in {args.out}")
    for col in ("id", "name", "backend", "created", "runs (pass/stored/planned)", "samples", "problems"):
        table.add_column(col)
    campaigns, damaged = catalog(args.out)
    rows = []
    for c in campaigns:
        index = c.index()
        runs = index.final()
        passed = sum(r.get("status") == "pass" for r in runs)
        samples = sum(r.get("sample_count") or 0 for r in runs)
        bad = len(index.damaged)
        rows.append((c.path.name, c.info["name"], c.info["spec"].get("backend", {}).get("kind", "native"),
                     c.info["created_at"][:19].replace("T", " "),
                     f"{passed}/{len(runs)}/{len(c.info.get('planned_runs', []))}", str(samples),
                     f"{bad} unreadable run{'s' * (bad != 1)} (xtalk show)" if bad else ""))
    for err in damaged:
        rows.append((err.file.parent.name, "?", "?", "?", "-", "-", f"{err.label}: {err.file.name}: {err.reason}"))
    for row in sorted(rows):
        table.add_row(*map(Text, row))
    out = console()
    if rows:
        out.print(table)
    else:
        out.print(f"no campaigns in {args.out}")
    return 0
