"""`xtalk show ID`: a campaign, every section of its report (report/sections.py, rendered
by report/terminal.py: the answer, doubts, setup, statistics, verdicts, overhead, boards,
runs, runs left out with the file and why...) from the same analysis as the report, less
what only the report computes (named at the end); or, as CAMPAIGN/RUN, one run (metadata,
events, statistics of its samples; exit 3 when its files cannot be read)."""
from __future__ import annotations

import json
import sys

from pathlib import Path

from ..controls import printable
from ..errors import EXIT_INFRASTRUCTURE, Problem, SpecError
from .common import add_command, add_json, add_out, console, find_campaign


ORDER = 40  # its place in `xtalk --help`


def add_parser(sub) -> None:
    p = add_command(sub, "show", "show a campaign or one of its runs (CAMPAIGN/RUN)", [
        "xtalk show quickstart", "xtalk show quickstart/same-core-r1 --json"])
    p.add_argument("id", metavar="CAMPAIGN", help="campaign id, name (its latest), path, or CAMPAIGN/RUN")
    add_out(p)
    add_json(p, "the campaign or run")
    p.add_argument("--verify", action="store_true",
                   help="hash every run's files against its manifest (by default only files whose size or mtime "
                        "changed are hashed)")
    p.set_defaults(handler=run)


def run(args) -> int:
    from ..analysis.pipeline import Options, analyze  # heavy (scipy): only when a command needs it
    from ..report import terminal
    from ..report.sections import report_of
    ident, run_id = args.id, ""
    if "/" in args.id.rstrip("/") and not (Path(args.id) / "campaign.json").exists():
        ident, _, run_id = args.id.rpartition("/")
    store = find_campaign(args.out, ident)
    store.manifests.verify = args.verify
    out = console(markup=False)
    if run_id:
        return show_run(store, run_id, args.json, out)
    analysis = analyze(store, Options(evt=False, extras=False))
    res = analysis.result
    if args.json:
        print(json.dumps({"campaign": store.info, "runs": store.runs(), "left_out": res["left_out"],
                          "stats": res["stats"], "baseline": res["baselines"], "verdicts": res["verdicts"],
                          "overhead": res["overhead"], "boards": res["boards"]}, indent=2, default=str))
    else:
        terminal.full(report_of(res, analysis.options), out)
    return verified(store, args.verify)


def verified(store, verify: bool) -> int:
    """With --verify: exit 3, saying so on stderr, when a run's files or record are not as
    they were written (damaged: a hash or size differs, a file is missing; missing: its
    directory is gone), or when a record has no hash to check it by (unverifiable: written
    by an xtalk before records were hashed). A damaged earlier attempt (kept aside by
    --resume, which redid the run) is said as a warning: no result rests on it."""
    if not verify:
        return 0
    index = store.index()
    used = [d for d in index.damaged if d.row(store.path)["final"]]
    for d in index.damaged:
        level = "error" if d in used else "warning"
        print(printable(f"xtalk: {level}: {store.path.name}/{d.dir.name}: {d.error.reason} ({d.error.file.name})"
                        + ("" if d in used else " (an earlier attempt, not used)")), file=sys.stderr)
    unhashed = (["campaign.json"] if not store.info.get("record_sha256") else []) + [
        f"runs/{r.dir.name}/meta.json" for r in index.runs
        if not r.meta.get("record_sha256") or (r.meta["status"] != "running" and not r.meta.get("files"))]
    if unhashed:
        print(printable(f"xtalk: error: {store.path.name}: unverifiable: {len(unhashed)} record(s) without the hashes "
                        f"to check them by (written by an xtalk before its records were hashed): "
                        f"{', '.join(unhashed[:5])}{' ...' if len(unhashed) > 5 else ''}"), file=sys.stderr)
    return EXIT_INFRASTRUCTURE if used or unhashed else 0


def show_run(store, run_id: str, as_json: bool, out) -> int:
    from rich.table import Table
    from rich.text import Text

    from ..analysis import wording
    from ..running.pressure import words as pressure_words
    from ..report.instrument import instrument_words
    from ..analysis.describe import stats_rows
    from ..analysis.scan import scan_run
    from ..report import terminal
    from ..report.tables import stats_table
    from ..results.query import connect  # DuckDB: loaded by the commands that query (query_cmd)
    index = store.index()
    damaged = next((d for d in index.damaged if d.dir.name == run_id), None)
    if damaged is not None:
        if not as_json:
            raise damaged.error
        print(json.dumps({"meta": damaged.meta, "damaged": damaged.row(store.path)}, indent=2, default=str))
        return EXIT_INFRASTRUCTURE
    run = next((r for r in index.runs if r.dir.name == run_id), None)
    if run is None:
        raise SpecError(run_id, [Problem("ID", f"no run {run_id!r} in {store.path.name}")])
    meta = run.meta
    events = connect(store).execute("SELECT kind, t_s, action, target, planned_s FROM all_events WHERE run_id = ? "
                                    "AND attempt = ? ORDER BY host_ns", [meta["run_id"], meta["attempt"]]).fetchall()
    deadlines = list((store.info.get("spec") or {}).get("deadlines") or [])
    streams = scan_run(run.dir, meta, deadlines, include_warmup=False) if meta["status"] != "running" else {}
    units = {m.get("name"): m.get("unit") or "cycles" for m in (meta.get("metrics") or {}).values()}
    rows = stats_rows({(meta["run_id"], m): s for m, s in streams.items()},
                      {meta["run_id"]: meta.get("config_id", "?")}, units)[0]
    if as_json:
        print(json.dumps({"meta": meta, "events": events, "stats": rows}, indent=2, default=str))
        return 0
    out.print(Text.assemble((printable(run_id), "bold"), printable(f" status={meta.get('status')} "
                                                               f"attempt={meta['attempt']} {meta.get('reason') or ''}")))
    for key in ("config", "placement", "start_order", "freq_hz", "sample_count", "lost_samples",
                "ring_lost_samples", "started_at", "ended_at"):
        out.print(f"  {key}: {meta.get(key)}", markup=False)
    measurer = meta.get("measurer") or {}
    if measurer.get("output", "xt") != "xt" or meta.get("imported_from"):
        out.print(f"  measurer output: {measurer.get('output')}"
                  + (f", image {measurer['image']} sha256 {measurer.get('image_sha256', '?')[:12]}"
                     if measurer.get("image") else "")
                  + (f", imported from {meta['imported_from']}" if meta.get("imported_from") else ""), markup=False)
    for name, facts in (meta.get("guests") or {}).items():
        out.print(f"  guest {name}: cpus={facts.get('affinity')} sched={facts.get('sched')} "
                  f"{facts.get('sched_refused', '')}", markup=False)
    watched, pressure = meta.get("stressors_watch") or {}, meta.get("pressure") or {}
    for name in dict.fromkeys([*watched, *pressure]):
        said = [watch_words(watched[name])] if name in watched else []
        out.print(f"  stressor {name}: {', '.join(said + [pressure_words(pressure.get(name))])}", markup=False)
    if meta.get("instrument"):
        out.print(f"  instrument {instrument_words(meta['instrument'])}", markup=False)
    table = Table(title="events")
    for col in ("kind", "t (s)", "action", "target", "planned (s)"):
        table.add_column(col)
    for kind, t_s, action, target, planned in events:
        table.add_row(kind, wording.seconds(t_s), action or "", target or "", wording.seconds(planned))
    out.print(table)
    terminal.table(stats_table(rows, units, per_run=True), out)
    return 0


def watch_words(w: dict) -> str:
    """How a stressor did over the measured window (meta.json stressors_watch), in one line."""
    from ..analysis import wording

    def pct(v):
        return wording.share(None if v is None else v * 100)

    parts = [f"exposure {pct(w.get('exposure'))}", f"cpu share {pct(w.get('cpu_share'))}",
             f"on-time {w.get('on_s') or 0:.1f} s"]
    parts += [f"{kind} {w[kind + '_s']:.1f} s" for kind in ("starved", "stopped", "gone") if w.get(kind + "_s")]
    parts.append("alive" if w.get("alive", True) else f"exited (status {(w.get('exit') or {}).get('status')})")
    if w.get("end"):
        parts.append(f"XT END status={w['end'].get('status')}")
    parts += [f"XT ERROR {e.get('param', '')} {e.get('msg', '')}".replace("  ", " ") for e in w.get("errors") or []]
    parts += [f"timeline {e['action']} at {e['planned_s']:g} s did not take effect ({e['detail']})"
              for e in w.get("timeline") or [] if e.get("took_effect") is False]
    return ", ".join(parts)
