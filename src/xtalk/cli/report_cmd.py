"""`xtalk report CAMPAIGN`: analyse a stored campaign and write report.html (self-contained),
report.md, report.json, stats.csv, samples.parquet and junit.xml; print the verdicts,
gates and warnings; exit 1 when a KPI gate fails."""
from __future__ import annotations

import json
from pathlib import Path

from rich.table import Table

from ..errors import EXIT_GATE_FAILED, EXIT_OK
from .common import add_out, console, find_campaign


def add_parser(sub) -> None:
    p = sub.add_parser("report", help="statistics, comparisons, pWCET, verdicts and plots of a campaign (HTML, MD, "
                                      "JSON, CSV, JUnit)")
    p.add_argument("campaign", help="campaign id, name (latest) or path")
    add_out(p)
    p.add_argument("--dest", type=Path, help="report directory (default: CAMPAIGN/report)")
    p.add_argument("--include-warmup", action="store_true", help="include warm-up samples and warm-up runs")
    p.add_argument("--exclude-rampup", action="store_true",
                   help="exclude each run's detected start-up ramp (significant MSER-5 warm-up) from the statistics")
    p.add_argument("--no-samples", action="store_true", help="do not write samples.parquet")
    p.add_argument("--json", action="store_true", help="print report.json on stdout instead of a summary")
    p.set_defaults(handler=run)


def _rich(t) -> Table:
    table = Table(title=t.title)
    for h in t.headers:
        table.add_column(h, overflow="fold")
    for row in t.rows:
        table.add_row(*row)
    return table


def run(args) -> int:
    # heavy (scipy, matplotlib): imported only when this command runs
    from ..analysis.pipeline import Options, analyze
    from ..report.build import write_report
    from ..report.tables import boards_table, overhead_table, stats_table, timeline_tables, verdict_table
    store = find_campaign(args.out, args.campaign)
    analysis = analyze(store, Options(include_warmup=args.include_warmup, exclude_rampup=args.exclude_rampup))
    dest = args.dest or store.path / "report"
    paths = write_report(analysis, dest, samples=not args.no_samples)
    res = analysis.result
    failed = sum(not g["passed"] for g in res["gates"])
    if args.json:
        print(json.dumps(res, indent=1))
        return EXIT_GATE_FAILED if failed else EXIT_OK
    out = console(markup=False)
    out.print(f"campaign {res['campaign']['id']}: overall {res['overall']}")
    cols = ("config", "runs", "metric", "n", "median", "p99", "max = WCET")
    full = stats_table(res["stats"], res["units"])
    idx = [full.headers.index(c) for c in cols]
    full.headers, full.rows = list(cols), [[r[i] for i in idx] for r in full.rows]
    out.print(_rich(full))
    for t in timeline_tables(res["timelines"]):
        out.print(_rich(t))
    for table, rows in ((verdict_table(res["verdicts"]), res["verdicts"]),
                        (overhead_table(res["overhead"]), res["overhead"]),
                        (boards_table(res.get("boards") or []), res.get("boards") or [])):
        if not rows:
            continue
        keep = [i for i, h in enumerate(table.headers) if h not in ("KPI", "sentence", "gates")]
        table.headers, table.rows = [table.headers[i] for i in keep], [[r[i] for i in keep] for r in table.rows]
        out.print(_rich(table))
        for v in rows:
            out.print(f"  {v['sentence']}" + (f" Gates: {'; '.join(v['gates'])}." if v["gates"] else ""))
    for v in res.get("stability") or []:
        out.print(f"  long-term stability {v['config_id']}: {v['verdict']} ({v['evidence']})")
    for e in res["evt"]:
        pw = e.get("pwcet") or {}
        out.print(f"  pWCET {e['config_id']}/{e['metric']}: " + (
            ", ".join(f"{p}: {v:,.0f}" for p, v in pw.items()) if e["status"] == "ok"
            else "refused — " + "; ".join(e["reasons"])))
    for w in res["warnings"]:
        out.print(f"  {w['level']}: {w['scope']}: {w['message']}")
    for f in res["noise_flags"]:
        out.print(f"  noise: {f}")
    out.print("written: " + ", ".join(str(p) for k, p in paths.items() if k != "plots"))
    return EXIT_GATE_FAILED if failed else EXIT_OK
