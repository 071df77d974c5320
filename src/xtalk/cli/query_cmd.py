"""`xtalk query CAMPAIGN SQL`: SQL over a campaign's runs, samples and events (DuckDB;
results/query.py). Runs whose files cannot be read are named on stderr. A query that
DuckDB refuses is a usage error (exit 2, DuckDB's message); one that fails reading the
campaign's files an infrastructure error (exit 3). --csv is RFC 4180 with every value
printable on one line (controls.py).
Caveat: the table (DuckDB's own renderer) is printed as DuckDB draws it."""
from __future__ import annotations

import csv
import sys

from ..controls import one_line, printable
from ..errors import InfrastructureError, UsageError
from .common import add_command, add_out, find_campaign


ORDER = 60  # its place in `xtalk --help`


def add_parser(sub) -> None:
    p = add_command(sub, "query", "run SQL over a campaign (tables: runs, samples, events; all_runs, "
                                  "all_samples, all_events with every attempt; damaged)", [
        'xtalk query quickstart "SELECT config_id, median(value) FROM samples GROUP BY 1"',
        'xtalk query quickstart "SELECT run_id, status FROM runs" --csv'])
    p.add_argument("campaign", help="campaign id, name (its latest) or path")
    p.add_argument("sql", help="e.g. \"SELECT config_id, median(value) FROM samples GROUP BY 1\"")
    add_out(p)
    p.add_argument("--csv", action="store_true", help="CSV output instead of a table")
    p.add_argument("--allow-files", action="store_true",
                   help="let the SQL read and write files other than the campaign's samples (read_csv, COPY ...)")
    p.set_defaults(handler=run)


def write_csv(columns: list[str], rows: list[tuple], out) -> None:
    """RFC 4180 CSV (a comma or quote in a value quoted, not a new column), each value on one
    printable line (controls.py): a guest's or an imported log's text cannot start a row
    or reach a terminal as an escape; NULL is an empty field."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([one_line(c) for c in columns])
    writer.writerows([["" if v is None else one_line(str(v)) for v in row] for row in rows])


def run(args) -> int:
    import duckdb  # 28 MB resident: loaded by the commands that query, not by every xtalk

    from ..results.query import connect

    store = find_campaign(args.out, args.campaign)
    con = connect(store, allow_files=args.allow_files)
    for run_id, status, file, reason in con.execute("SELECT run, status, file, reason FROM damaged").fetchall():
        print(printable(f"xtalk: warning: run {run_id} left out: {status}: {file}: {reason}"), file=sys.stderr)
    try:
        rel = con.sql(args.sql)
        if rel is None:
            return 0
        if args.csv:
            write_csv(rel.columns, rel.fetchall(), sys.stdout)
        else:
            rel.show(max_rows=200, max_width=200)
    except duckdb.IOException as err:
        raise InfrastructureError(f"query: {err}") from None
    except duckdb.PermissionException as err:
        raise UsageError(f"query: {err} (the query may read only the campaign's samples; --allow-files lifts "
                         "this)") from None
    except duckdb.Error as err:
        raise UsageError(f"query: {err}") from None
    return 0
