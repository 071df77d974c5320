"""`xtalk report CAMPAIGN`: analyse a stored campaign and write report.html (self-contained),
report.md, report.json, stats.csv, samples.parquet and junit.xml (the PNG plots left out with
--no-plots, for scripts that read the JSON: matplotlib takes about a second a plot); print the report's
sections (report/terminal.py); exit 1 when a KPI gate fails.
The samples are copied into the report first, before the analysis: the copy's buffers come
and go while only NumPy and Arrow are loaded, not on top of SciPy's and Matplotlib's."""
from __future__ import annotations

import json
from pathlib import Path

from ..errors import EXIT_GATE_FAILED, EXIT_OK
from .common import add_command, add_json, add_out, add_sample_selection, console, find_campaign


ORDER = 70  # its place in `xtalk --help`


def add_parser(sub) -> None:
    p = add_command(sub, "report", "statistics, comparisons, pWCET, verdicts and plots of a campaign (HTML, MD, "
                                   "JSON, CSV, JUnit)",
                    ["xtalk report quickstart", "xtalk report quickstart --dest /tmp/quickstart-report --json"])
    p.add_argument("campaign", help="campaign id, name (its latest) or path")
    add_out(p)
    p.add_argument("--dest", type=Path, metavar="DIR", help="directory to write the report into (default: "
                                                            "CAMPAIGN/report)")
    add_sample_selection(p)
    p.add_argument("--no-samples", action="store_true", help="do not write samples.parquet")
    p.add_argument("--no-plots", action="store_true", help="do not draw the PNG plots (about a second each on a "
                                                           "small host): for scripts that read the JSON")
    add_json(p, "the report (report.json)")
    p.set_defaults(handler=run, interrupted="no report was written; a previous one is kept as it was")


def run(args) -> int:
    # heavy (scipy, matplotlib): imported only when this command runs
    from ..analysis.pipeline import Options, compute, load
    from ..report import terminal
    from ..report.build import SAMPLES, export_samples, placed, report_dir, report_json, write_files
    from ..report.sections import report_of
    store = find_campaign(args.out, args.campaign)
    store.manifests.verify = True  # every file a claim rests on hashed, not only those whose mtime moved
    dest = args.dest or store.path / "report"
    with report_dir(dest) as tmp:
        loaded = load(store)
        if not args.no_samples:
            export_samples(loaded.index.sample_files(), tmp / SAMPLES)
        analysis = compute(loaded, Options(include_warmup=args.include_warmup, exclude_rampup=args.exclude_rampup))
        report = report_of(analysis.result, analysis.options)
        paths = placed(write_files(analysis, tmp, report, draw_plots=not args.no_plots), tmp, dest)
    failed = sum(not c.passed for s in report.computed() for c in s.checks)
    if args.json:
        print(json.dumps(report_json(analysis.result, report), indent=1))
        return EXIT_GATE_FAILED if failed else EXIT_OK
    out = console(markup=False)
    terminal.full(report, out)
    out.print("written: " + ", ".join(str(p) for k, p in paths.items() if k != "plots"))
    return EXIT_GATE_FAILED if failed else EXIT_OK
