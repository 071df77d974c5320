"""`xtalk list`: the campaigns in a results directory."""
from __future__ import annotations

from rich.table import Table

from ..results.store import list_campaigns
from .common import add_out, console


def add_parser(sub) -> None:
    p = sub.add_parser("list", help="list stored campaigns")
    add_out(p)
    p.set_defaults(handler=run)


def run(args) -> int:
    table = Table(title=f"campaigns in {args.out}")
    for col in ("id", "name", "backend", "created", "runs (pass/stored/planned)", "samples"):
        table.add_column(col)
    campaigns = list_campaigns(args.out)
    for c in campaigns:
        runs = c.runs()
        passed = sum(r.get("status") == "pass" for r in runs)
        samples = sum(r.get("sample_count") or 0 for r in runs)
        table.add_row(c.path.name, c.info["name"], c.info["spec"].get("backend", {}).get("kind", "native"),
                      c.info["created_at"][:19].replace("T", " "),
                      f"{passed}/{len(runs)}/{len(c.info.get('planned_runs', []))}", str(samples))
    out = console()
    if campaigns:
        out.print(table)
    else:
        out.print(f"no campaigns in {args.out}")
    return 0
