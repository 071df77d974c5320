"""`xtalk run SPEC`: validate, plan, run every run, store it. Exit 3 when a run did not
pass (failed, errored, interrupted, or its files cannot be read), else 1 when a KPI gate
failed, else 0. Degraded runs (run.stressor_failure = "degrade") are a warning: no
statistic uses them, and they do not make the exit 3."""
from __future__ import annotations

import json
import sys

from rich.table import Table

from ..analysis.wording import short
from ..campaign import run_campaign
from ..errors import EXIT_GATE_FAILED, EXIT_INFRASTRUCTURE, EXIT_OK
from ..plan import plan
from ..fleet.model import load_fleet
from .common import add_out, add_set, backends_text, console, load_spec


def add_parser(sub) -> None:
    p = sub.add_parser("run", help="run a campaign")
    p.add_argument("spec", help="campaign spec (TOML)")
    add_out(p)
    add_set(p)
    p.add_argument("--dry-run", action="store_true", help="print the planned runs and stop")
    p.add_argument("--resume", action="store_true",
                   help="continue the latest campaign of this spec, skipping completed runs")
    p.add_argument("--fleet", metavar="FLEET", help="run on a labgrid-managed fleet of boards (a fleet file, "
                   "docs/fleet.md)")
    p.add_argument("--json", action="store_true", help="print a machine-readable summary on stdout")
    p.add_argument("--report", action="store_true",
                   help="write the report (HTML, Markdown, JSON, CSV) into the campaign's report/ when it ends")
    p.set_defaults(handler=run)


def print_plan(spec, runs) -> None:
    table = Table(title=f"{spec.name}: {len(runs)} runs, {backends_text(runs)}")
    for col in ("#", "run id", "backend", "placement", "order", "measurer (cpu)", "stressors (cpu)", "timeline"):
        table.add_column(col)
    for r in runs:
        stressors = ", ".join(f"{g.name}:{g.bench} ({','.join(map(str, g.cpus))})" for g in r.stressors) or "-"
        events = ", ".join(f"{e.action} {e.target}@{e.at_s:g}s" for e in r.timeline) or "-"
        if spec.paired and r.timeline:
            events = f"paired: off {spec.paired.off_s:g} s / on {spec.paired.on_s:g} s ({len(r.timeline)} switches)"
        table.add_row(str(r.index), r.run_id + (" (warm-up)" if r.warmup else ""), r.backend, r.placement,
                      r.start_order if r.stressors else "-",
                      f"{r.measurer.bench} ({','.join(map(str, r.measurer.cpus))})", stressors, events)
    console().print(table)


def run(args) -> int:
    spec, raw, text = load_spec(args.spec, args.overrides)
    fleet = load_fleet(args.fleet) if args.fleet else None  # a bad fleet file is told first, --dry-run too
    runs = plan(spec, raw)
    if args.dry_run:
        if args.json:
            print(json.dumps([{"run_id": r.run_id, "config": r.config, "warmup": r.warmup, "backend": r.backend,
                               "guests": [{"name": g.name, "bench": g.bench, "cpus": g.cpus}
                                          for g in r.guests]} for r in runs], indent=2))
        else:
            print_plan(spec, runs)
        return EXIT_OK
    if fleet:
        from ..fleet.campaign import run_fleet_campaign  # labgrid, grpc: only for a fleet
        result = run_fleet_campaign(spec, raw, text, args.spec, args.out, fleet, args.fleet,
                                    args.overrides, resume=args.resume)
    else:
        result = run_campaign(spec, raw, text, args.spec, args.out, resume=args.resume)
    from ..analysis.pipeline import Options, analyze  # heavy (scipy): imported once the runs are done
    analysis = analyze(result.store, Options(evt=args.report, extras=args.report))
    gates = analysis.result["gates"]
    statuses = [r["status"] for r in result.store.runs()]
    not_passed = {r["run_id"]: r["status"] for r in analysis.result["runs"] if r["status"] not in ("pass", "degraded")}
    degraded = {r["run_id"]: r["reason"] for r in analysis.result["runs"] if r["status"] == "degraded"}
    not_passed.update({d["run"]: f"{d['status']} ({d['file']})" for d in analysis.result["left_out"] if d["final"]})
    not_passed.update(result.not_run)
    total = len({r["run_id"] for r in analysis.result["runs"]} | set(not_passed))
    summary = {
        "campaign": result.store.path.name, "path": str(result.store.path),
        "runs": len(statuses), "passed": statuses.count("pass"),
        "degraded": statuses.count("degraded"),
        "failed": len(statuses) - statuses.count("pass") - statuses.count("degraded"), "skipped_resumed": result.skipped,
        "not_run": result.not_run,
        "left_out": analysis.result["left_out"],
        "gates": gates, "gates_failed": sum(not g["passed"] for g in gates),
        **{key: [{k: v.get(k) for k in ("config_id", "metric", "verdict", "statistic", "change_pct", "ci95_pct",
                                        "noise_floor_pct", "sentence")} for v in analysis.result[key]]
           for key in ("verdicts", "overhead")},
    }
    if args.report:
        from ..report.build import write_report
        paths = write_report(analysis, result.store.path / "report")
        summary["report"] = str(paths["html"])
    if args.json:
        print(json.dumps(summary, indent=2, default=str))
    else:
        out = console(markup=False)
        out.print(f"campaign {summary['campaign']}: {summary['passed']}/{summary['runs']} runs passed; "
                  f"results in {summary['path']}")
        for v in analysis.result["verdicts"]:
            out.print(f"  {v['config_id']} / {v['metric']}: {short(v, v.get('unit_word', 'runs'))}")
        for v in analysis.result["overhead"]:
            if v["verdict"] != "baseline":
                out.print(f"  {v['config_id']} / {v['metric']} against native: {short(v)}")
        for g in gates:
            out.print(f"  gate {g['metric']} {g['stat']} [{g['config_id']}]: "
                      f"{'pass' if g['passed'] else 'FAIL'} ({g['detail']})")
        out.print(f"  see: xtalk show {summary['campaign']} --out {args.out}")
        if "report" in summary:
            out.print(f"  report: {summary['report']}")
    if degraded:
        print(f"xtalk: warning: {len(degraded)} of {total} runs degraded (kept, used by no statistic): "
              + "; ".join(f"{run} ({why})" for run, why in degraded.items()), file=sys.stderr)
    if not_passed:
        print(f"xtalk: error: {len(not_passed)} of {total} runs did not pass: "
              + ", ".join(f"{run} {why}" for run, why in not_passed.items()), file=sys.stderr)
        return EXIT_INFRASTRUCTURE
    return EXIT_GATE_FAILED if summary["gates_failed"] else EXIT_OK
