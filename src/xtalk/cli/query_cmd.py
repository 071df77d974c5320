"""`xtalk query CAMPAIGN SQL`: SQL over a campaign's runs, samples and events (DuckDB)."""
from __future__ import annotations

import sys

from ..results.query import connect
from .common import add_out, find_campaign


def add_parser(sub) -> None:
    p = sub.add_parser("query", help="run SQL over a campaign (tables: runs, samples, events)")
    p.add_argument("campaign", help="campaign id, name (latest) or path")
    p.add_argument("sql", help="e.g. \"SELECT config_id, median(value) FROM samples GROUP BY 1\"")
    add_out(p)
    p.add_argument("--csv", action="store_true", help="CSV output instead of a table")
    p.set_defaults(handler=run)


def run(args) -> int:
    con = connect(find_campaign(args.out, args.campaign))
    rel = con.sql(args.sql)
    if rel is None:
        return 0
    if args.csv:
        cols = rel.columns
        sys.stdout.write(",".join(cols) + "\n")
        for row in rel.fetchall():
            sys.stdout.write(",".join("" if v is None else str(v) for v in row) + "\n")
    else:
        rel.show(max_rows=200, max_width=200)
    return 0
