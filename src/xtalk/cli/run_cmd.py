"""`xtalk run SPEC`: validate, plan, run every run, store it, then tell the summary
(report/summary.py) and each report section's findings (report/terminal.py brief). Exit 3
when a run did not pass (failed, errored, interrupted, or its files cannot be read), else 1
when a KPI gate failed, else 0. A fleet's boards that went down or became suspect are
named with why (`boards_out`). Degraded runs (run.stressor_failure = "degrade") are a
warning: no statistic uses them, and they do not make the exit 3. CPUs or a campaign
directory another xtalk holds (host/leases.py) refuse the campaign (exit 2) before
anything starts; --wait queues behind that xtalk instead. A design that cannot reach a
verdict (xtalk.design) is refused by --dry-run (exit 2) and only warned about by a run."""
from __future__ import annotations

import json
import shlex
import sys

from ..errors import EXIT_OK, SpecError
from .common import GUESTS_STOPPED, add_command, add_json, add_out, add_set, add_wait, backends_text, console, load_spec


ORDER = 10  # its place in `xtalk --help`


def add_parser(sub) -> None:
    p = add_command(sub, "run", "run a campaign: every planned run, stored in a new campaign directory", [
        "xtalk run experiments/quickstart.toml --report",
        "xtalk run experiments/quickstart.toml --set run.repetitions=1 --dry-run"],
        more="An interrupted campaign goes on with --resume.")
    p.add_argument("spec", metavar="SPEC", help="campaign spec (TOML file)")
    add_out(p)
    add_set(p)
    p.add_argument("--dry-run", action="store_true", help="print the planned runs and stop")
    p.add_argument("--resume", action="store_true",
                   help="continue the latest campaign of this spec, skipping completed runs")
    add_wait(p)
    p.add_argument("--fleet", metavar="FLEET", help="run on a labgrid-managed fleet of boards (a fleet file, "
                   "docs/fleet.md)")
    add_json(p, "the summary (with --dry-run: the plan)")
    p.add_argument("--report", action="store_true",
                   help="write the report (HTML, Markdown, JSON, CSV) into the campaign's report/ when it ends")
    p.set_defaults(handler=run, resume_command=resume_command, interrupted=GUESTS_STOPPED)


def resume_command(args) -> str:
    """The command that goes on with an interrupted campaign: the same spec, --set and
    fleet (--resume refuses another), and results directory."""
    words = ["xtalk", "run", args.spec, "--resume", "--out", str(args.out)]
    words += [w for o in args.overrides for w in ("--set", o)] + (["--fleet", args.fleet] if args.fleet else [])
    return shlex.join(words)


def cpus_text(guest) -> str:
    """A guest's CPUs: "0" for one vCPU; "vCPU0→0 vCPU1→0" for several (each vCPU's CPU)."""
    if guest.vcpus == 1:
        return ",".join(map(str, guest.cpus))
    return " ".join(f"vCPU{i}→{cpu}" for i, cpu in enumerate(guest.cpus))


def print_plan(spec, runs) -> None:
    from rich.table import Table
    table = Table(title=f"{spec.name}: {len(runs)} runs, {backends_text(runs)}")
    for col in ("#", "run id", "backend", "placement", "order", "measurer (cpu)", "stressors (cpu)", "timeline"):
        table.add_column(col)
    for r in runs:
        stressors = ", ".join(f"{g.name}:{g.bench} ({cpus_text(g)})" for g in r.stressors) or "-"
        events = ", ".join(f"{e.action} {e.target}@{e.at_s:g}s" for e in r.timeline) or "-"
        if spec.paired and r.timeline:
            events = f"paired: off {spec.paired.off_s:g} s / on {spec.paired.on_s:g} s ({len(r.timeline)} switches)"
        table.add_row(str(r.index), r.run_id + (" (warm-up)" if r.warmup else ""), r.backend, r.placement,
                      r.start_order if r.stressors else "-",
                      f"{r.measurer.bench} ({cpus_text(r.measurer)})", stressors, events)
    console().print(table)


def _images_ahead(runs) -> None:
    """Start making the guest images of the runs' backends, beside the campaign's imports
    (images/artifacts.make_ahead: the make waited for before the first run prepares)."""
    from ..images import artifacts
    from ..plugins import backend_class
    configs = {r.config_id: r for r in runs}.values()
    artifacts.make_ahead(tuple(dict.fromkeys(target for r in configs
                                             for target in backend_class(r.backend).make_targets(r.spec.backend.options))))


def run(args) -> int:
    from ..spec.plan import plan
    spec, raw, text = load_spec(args.spec, args.overrides)

    fleet = None
    if args.fleet:  # a bad fleet file is told first, --dry-run too
        from ..fleet.model import load_fleet  # pydantic models (~50 ms): only for a fleet
        fleet = load_fleet(args.fleet)
    runs = plan(spec, raw)
    if not args.dry_run and not fleet:
        _images_ahead(runs)
    from ..design import check_design
    from ..running.campaign import run_campaign
    from .design_output import print_design, warn_design
    design = check_design(spec, raw, runs, text, args.out if args.dry_run and not args.json else None)
    if args.dry_run:
        if args.json:
            print(json.dumps([{"run_id": r.run_id, "config": r.config, "warmup": r.warmup, "backend": r.backend,
                               "guests": [{"name": g.name, "bench": g.bench, "cpus": g.cpus}
                                          for g in r.guests]} for r in runs], indent=2))
            if design.problems:
                raise SpecError(args.spec, design.problems)
        else:
            print_plan(spec, runs)
            print_design(design, spec, args.spec, len(runs))
        return EXIT_OK
    warn_design(design)
    if not fleet:  # a fleet's boards store their runs on their own file systems
        from ..running.ingest_check import ingest_warnings
        for line in ingest_warnings(runs, args.out):
            print(f"xtalk: warning: {line}", file=sys.stderr)
    if fleet:
        from ..fleet.campaign import run_fleet_campaign  # labgrid, grpc: only for a fleet
        result = run_fleet_campaign(spec, raw, text, args.spec, args.out, fleet, args.fleet,
                                    args.overrides, resume=args.resume, wait=args.wait)
    else:
        result = run_campaign(spec, raw, text, args.spec, args.out, resume=args.resume, wait=args.wait)
    from ..analysis.pipeline import Options, analyze  # heavy (scipy): imported once the runs are done
    from ..report import terminal
    from ..report.sections import report_of
    from ..report.summary import run_summary
    analysis = analyze(result.store, Options(evt=args.report, extras=args.report))
    summary = run_summary(analysis.result, [r["status"] for r in result.store.runs()], result.not_run, result.skipped)
    data = summary.data
    if result.boards_out:
        data["boards_out"] = result.boards_out
    if args.report:
        from ..report.build import write_report
        data["report"] = str(write_report(analysis, result.store.path / "report")["html"])
    if args.json:
        print(json.dumps(data, indent=2, default=str))
    else:
        out = console(markup=False)
        out.print(f"campaign {data['campaign']}: results in {data['path']}", soft_wrap=True)
        terminal.headline(data["headline"], out)
        terminal.brief(report_of(analysis.result, analysis.options), out)
        out.print(f"  see: xtalk show {data['campaign']} --out {args.out}")
        if "report" in data:
            out.print(f"  report: {data['report']}")
    if summary.degraded:
        print(f"xtalk: warning: {len(summary.degraded)} of {summary.total} runs degraded (kept, used by no statistic): "
              + "; ".join(f"{run} ({why})" for run, why in summary.degraded.items()), file=sys.stderr)
    for why in result.boards_out.values():
        print(f"xtalk: error: {why}", file=sys.stderr)
    if summary.not_passed:
        print(f"xtalk: error: {len(summary.not_passed)} of {summary.total} runs did not pass: "
              + ", ".join(f"{run} {why}" for run, why in summary.not_passed.items()), file=sys.stderr)
    return summary.exit_status()
