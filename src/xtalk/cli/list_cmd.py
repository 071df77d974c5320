"""`xtalk list`: the campaigns in a results directory, the unreadable ones among them
(campaign.json, or some of their runs: corrupt, or damaged since their manifest) with
what is wrong. A record this very xtalk checked and stamped is read as it is, without
pydantic (CampaignStore quick: results/record_file.py); any other through its models."""
from __future__ import annotations

from .common import add_command, add_out, console


ORDER = 30  # its place in `xtalk --help`


def add_parser(sub) -> None:
    p = add_command(sub, "list", "list stored campaigns", ["xtalk list", "xtalk list --out /data/xtalk-results"])
    add_out(p)
    p.set_defaults(handler=run)


def run(args) -> int:
    from rich.table import Table
    from rich.text import Text

    from ..results.store import catalog
    table = Table(title=f"campaigns in {args.out}")

    for col in ("id", "name", "backend", "created", "runs (pass/stored/planned)", "samples", "problems"):
        table.add_column(col)
    campaigns, damaged = catalog(args.out, quick=True)
    rows = []
    for c in campaigns:
        index = c.index()
        runs = index.final()
        passed = sum(r.get("status") == "pass" for r in runs)
        samples = sum(r.get("sample_count") or 0 for r in runs)
        rows.append((c.path.name, c.info["name"], c.info["spec"].get("backend", {}).get("kind", "native"),
                     c.info["created_at"][:19].replace("T", " "),
                     f"{passed}/{len(runs)}/{len(c.info.get('planned_runs', []))}", str(samples),
                     problems(c.path, index.damaged)))
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


def problems(store_path, damaged) -> str:
    """The runs left out (status, file, what is wrong), the first two in full; earlier
    attempts (kept by --resume, not used) only counted."""
    rows = [d.row(store_path) for d in damaged]
    final = [r for r in rows if r["final"]]
    text = "; ".join(f"{r['status']}: {r['file'].removeprefix('runs/')}: {r['reason']}" for r in final[:2])
    if len(final) > 2:
        text += f"; {len(final) - 2} more"
    if earlier := len(rows) - len(final):
        text += f"{'; ' * bool(text)}{earlier} earlier attempt{'s' * (earlier != 1)} unreadable, kept"
    return f"{text} (xtalk show)" if text else ""
