"""`xtalk compare A B`, `xtalk compare A1 A2 A3 vs B1 B2 B3`: campaigns side by side (e.g.
Xen vs QEMU/KVM, one or several boots each; or two boards of a per-board fleet campaign,
CAMPAIGN@PLACE), the campaign a level of the design (analysis/levels.py), with the drift
between campaigns measured from each side's campaigns and the stored campaigns of the same
spec on this host (results/replicates.py): a terminal table and a self-contained
compare.html (+ compare.json) in --dest."""
from __future__ import annotations

import json
from pathlib import Path

from ..files import write_atomic
from ..errors import EXIT_OK, Problem, SpecError
from .common import add_command, add_json, add_out, add_sample_selection, console, find_campaign

SEPARATOR = "vs"


ORDER = 80  # its place in `xtalk --help`


def add_parser(sub) -> None:
    p = add_command(sub, "compare", "compare campaigns side by side, one or several a side (HTML + table)", [
        "xtalk compare quickstart-20250101-120000 quickstart", f"xtalk compare a1 a2 {SEPARATOR} b1 b2 --json"])
    p.add_argument("campaigns", nargs="+", metavar="CAMPAIGN",
                   help=f"A B, or A1 A2 ... {SEPARATOR} B1 B2 ... (several campaigns, e.g. boots, a side); each an "
                   "id, name (its latest) or path (CAMPAIGN@PLACE: one board of a per-board fleet campaign); A is the "
                   "reference")
    add_out(p)
    p.add_argument("--no-replicates", action="store_true",
                   help="do not measure the drift between campaigns from other stored campaigns of the same spec "
                   "on this host")
    p.add_argument("--dest", type=Path, metavar="DIR", help="directory to write the comparison into (default: "
                                                            "OUT/compare-A-vs-B)")
    add_sample_selection(p)
    add_json(p, "the comparison (compare.json)")
    p.set_defaults(handler=run)


def sides(names: list[str]) -> tuple[list[str], list[str]]:
    """The two sides of `A B` or `A1 A2 vs B1 B2`."""
    if SEPARATOR in names:
        i = names.index(SEPARATOR)
        a, b = names[:i], names[i + 1:]
    elif len(names) == 2:
        a, b = names[:1], names[1:]
    else:
        a, b = [], []
    if not a or not b or SEPARATOR in b:
        raise SpecError("compare", [Problem("CAMPAIGN", f"name two campaigns (A B) or two sides of one or more "
                                                        f"(A1 A2 {SEPARATOR} B1 B2); got {' '.join(names)}")])
    return a, b


def run(args) -> int:
    # heavy (scipy, matplotlib): imported only when this command runs
    from ..analysis.comparison import Group, compare_campaigns
    from ..analysis.pipeline import Options, analyze
    from ..report import compare_page
    from ..results.replicates import replicates
    opt = Options(include_warmup=args.include_warmup, exclude_rampup=args.exclude_rampup, evt=False, extras=False)
    names_a, names_b = sides(args.campaigns)
    stores_a = [find_campaign(args.out, x) for x in names_a]
    stores_b = [find_campaign(args.out, x) for x in names_b]
    compared = stores_a + stores_b
    where = [args.out] + [s.path.parent for s in compared]
    sib_a = [] if args.no_replicates else replicates(stores_a, compared, where)
    sib_b = [] if args.no_replicates else replicates(stores_b, compared, where)
    done: dict = {}

    def analysed(store):
        key = (store.path.resolve(), store.info["id"])
        if key not in done:
            done[key] = analyze(store, opt)
        return done[key]
    a = Group([analysed(s) for s in stores_a], [analysed(s) for s in sib_a])
    b = Group([analysed(s) for s in stores_b], [analysed(s) for s in sib_b])
    shared = bool({s.path.resolve() for s in sib_a} & {s.path.resolve() for s in sib_b})
    cmp = compare_campaigns(a, b, shared_siblings=shared)
    dest = args.dest or args.out / f"compare-{stores_a[0].info['id']}-vs-{stores_b[0].info['id']}"
    dest.mkdir(parents=True, exist_ok=True)
    tabs = compare_page.tables(cmp)
    groups = {"a": compare_page.side_doubts(a.campaigns[0].result),
              "b": compare_page.side_doubts(b.campaigns[0].result)}
    write_atomic(dest / "compare.html", compare_page.page(cmp, tabs, compare_page.plots(cmp, a, b), groups))
    write_atomic(dest / "compare.json", json.dumps(cmp, indent=1))
    if args.json:
        print(json.dumps(cmp, indent=1))
        return EXIT_OK
    out = console(markup=False)
    for key in ("a", "b"):
        out.print(f"{key.upper()} = {cmp[key]['label']}: {compare_page.side_runs(cmp[key])}", soft_wrap=True)
    for t in tabs:
        from rich.table import Table
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
    _print_doubts(out, cmp, groups, [stores_a[0], stores_b[0]], dest / "compare.html")
    out.print(f"written: {dest / 'compare.html'}, {dest / 'compare.json'}")
    return EXIT_OK


def _print_doubts(out, cmp: dict, groups: dict, stores: list, page: Path) -> None:
    """After the answer: per side, one line per kind of doubt with its count, and where
    the items are."""
    if not any(groups.values()):
        return
    out.print("What makes a number doubtful (count per kind):")
    for key, store in zip(("a", "b"), stores):
        out.print(f"  {key.upper()} = {cmp[key]['label']}:" + ("" if groups[key] else " nothing"), soft_wrap=True)
        for d in groups[key]:
            out.print(f"    {d.level}: {d.title}: {len(d.items)}", soft_wrap=True)
    out.print(f"  each item: {page} (What makes a number doubtful), or xtalk show "
              f"{stores[0].info['id']} / {stores[1].info['id']}", soft_wrap=True)
