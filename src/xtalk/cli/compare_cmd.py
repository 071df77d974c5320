"""`xtalk compare A B`: two campaigns side by side (e.g. Xen vs QEMU/KVM; or two boards of a
per-board fleet campaign, CAMPAIGN@PLACE): a terminal
table and a self-contained compare.html (+ compare.json) in --dest."""
from __future__ import annotations

import json
from pathlib import Path

from rich.table import Table

from ..atomic import write_atomic
from ..errors import EXIT_OK
from .common import add_out, console, find_campaign


def add_parser(sub) -> None:
    p = sub.add_parser("compare", help="compare two campaigns side by side (HTML + table)")
    p.add_argument("a", help="campaign A (id, name or path; CAMPAIGN@PLACE: one board of a per-board fleet "
                   "campaign): the reference")
    p.add_argument("b", help="campaign B (id, name or path, or CAMPAIGN@PLACE)")
    add_out(p)
    p.add_argument("--dest", type=Path, help="output directory (default: OUT/compare-A-vs-B)")
    p.add_argument("--include-warmup", action="store_true", help="include warm-up samples and warm-up runs")
    p.add_argument("--exclude-rampup", action="store_true", help="exclude each run's detected start-up ramp")
    p.add_argument("--json", action="store_true", help="print compare.json on stdout")
    p.set_defaults(handler=run)


def run(args) -> int:
    # heavy (scipy, matplotlib): imported only when this command runs
    from ..analysis.campaigns import compare_campaigns
    from ..analysis.pipeline import Options, analyze
    from ..report import compare_page
    opt = Options(include_warmup=args.include_warmup, exclude_rampup=args.exclude_rampup, evt=False, extras=False)
    sa, sb = find_campaign(args.out, args.a), find_campaign(args.out, args.b)
    a, b = analyze(sa, opt), analyze(sb, opt)
    cmp = compare_campaigns(a, b)
    dest = args.dest or args.out / f"compare-{sa.info['id']}-vs-{sb.info['id']}"
    dest.mkdir(parents=True, exist_ok=True)
    tabs = compare_page.tables(cmp)
    write_atomic(dest / "compare.html", compare_page.page(cmp, tabs, compare_page.plots(cmp, a, b)))
    write_atomic(dest / "compare.json", json.dumps(cmp, indent=1))
    if args.json:
        print(json.dumps(cmp, indent=1))
        return EXIT_OK
    out = console(markup=False)
    for t in tabs:
        table = Table(title=t.title)
        keep = [i for i, h in enumerate(t.headers) if h != "sentence"]
        for i in keep:
            table.add_column(t.headers[i], overflow="fold")
        for row in t.rows:
            table.add_row(*[row[i] for i in keep])
        out.print(table)
    for r in cmp["rows"]:
        out.print(f"  {r['sentence']}")
    if cmp["only_a"] or cmp["only_b"]:
        out.print(f"  only in A: {', '.join(cmp['only_a']) or 'none'}; only in B: {', '.join(cmp['only_b']) or 'none'}")
    out.print(f"written: {dest / 'compare.html'}, {dest / 'compare.json'}")
    return EXIT_OK
