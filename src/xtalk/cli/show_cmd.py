"""`xtalk show ID`: a campaign (runs, statistics per configuration, the verdicts and, where
the backend is a dimension, each guest's overhead against native, from the same analysis
as the report; runs whose files cannot be read listed with the file and why, and left
out) or, as CAMPAIGN/RUN, one run (metadata, events, statistics of its
samples; exit 3 when its files cannot be read)."""
from __future__ import annotations

import json

from pathlib import Path

from rich.table import Table
from rich.text import Text

from ..analysis.wording import short
from ..errors import EXIT_INFRASTRUCTURE, Problem, SpecError
from ..results.query import connect
from .common import add_out, console, find_campaign


def add_parser(sub) -> None:
    p = sub.add_parser("show", help="show a campaign or one of its runs (CAMPAIGN/RUN)")
    p.add_argument("id", help="campaign id, name (latest), path, or CAMPAIGN/RUN")
    add_out(p)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=run)


def _fmt(v, digits=0) -> str:
    if v is None:
        return "-"
    return f"{v:,.{digits}f}" if isinstance(v, float) else f"{v:,}"


def stats_table(title: str, rows: list[dict], units: dict[str, str], per_run: bool = False) -> Table:
    """Statistics in the metric's own unit (cycles, ns, count), with the median in ns."""
    table = Table(title=title)
    lead = ("run", "metric", "unit") if per_run else ("config", "metric", "unit", "runs")
    for col in lead + ("n", "min", "q1", "median", "q3", "max", "mean", "sd", "median ns"):
        table.add_column(col, justify="left" if col in ("config", "run", "metric") else "right",
                         no_wrap=col in ("config", "run"))
    for r in rows:
        unit = units.get(r["metric"], "cycles")
        first = [r["run_id"], r["metric"], unit] if per_run else [r["config_id"], r["metric"], unit, str(r.get("runs"))]
        table.add_row(*first, _fmt(r.get("n")), *[_fmt(r.get(k)) for k in ("min", "q1", "median", "q3", "max",
                                                                             "mean", "sd", "median_ns")])
    return table


def run(args) -> int:
    from ..analysis.pipeline import Options, analyze  # heavy (scipy): only when a command needs it
    ident, run_id = args.id, ""
    if "/" in args.id.rstrip("/") and not (Path(args.id) / "campaign.json").exists():
        ident, _, run_id = args.id.rpartition("/")
    store = find_campaign(args.out, ident)
    out = console()
    if run_id:
        return show_run(store, run_id, args.json, out)
    res = analyze(store, Options(evt=False, extras=False)).result
    runs = store.runs()
    if args.json:
        print(json.dumps({"campaign": store.info, "runs": runs, "left_out": res["left_out"], "stats": res["stats"],
                          "baseline": res["baselines"], "verdicts": res["verdicts"],
                          "overhead": res["overhead"]}, indent=2, default=str))
        return 0
    out.print(f"[bold]{store.path.name}[/] — campaign {store.info['name']!r}, "
              f"created {store.info['created_at'][:19]}, {store.path}")
    table = Table(title="runs")
    fleet = "fleet" in store.info  # xtalk run --fleet: which board each run ran on
    for col in ("run", *(("board",) if fleet else ()), "status", "samples", "lost", "host noise", "reason"):
        table.add_column(col)
    for r in runs:
        lost = (r.get("lost_samples") or 0) + (r.get("ring_lost_samples") or 0)
        noise = r.get("noise") or {}
        noisy = ", ".join(f"cpu{c} {noise['cpus'][c]['foreign_pct']:.0f}%" for c in noise.get("noisy_cpus") or [])
        board = ((r.get("fleet") or {}).get("place") or "-",) if fleet else ()
        table.add_row(r["run_id"], *board, r.get("status", "?"), _fmt(r.get("sample_count")), _fmt(lost),
                      noisy or ("-" if "cpus" in noise else "not measured"), Text(r.get("reason") or ""))
    for d in res["left_out"]:
        table.add_row(d["run"], *(("-",) if fleet else ()), d["status"], "-", "-", "-",
                      Text(f"{d['file']}: {d['reason']}"))
    out.print(table)
    for d in res["left_out"]:
        out.print(Text(f"left out of the statistics: {d['run']} ({d['status']}: {d['file']}: {d['reason']})"))
    if not res["stats"]:
        out.print("no statistics: no passing run has samples")
        return 0
    out.print(stats_table("statistics per configuration (warm-up excluded; passing runs)", res["stats"],
                          res["units"]))
    out.print(verdict_table(f"verdicts (alpha {res['analysis']['alpha']:g})", res["verdicts"]))
    if res["overhead"]:
        out.print(verdict_table(f"overhead against the bare machine (native; alpha {res['analysis']['alpha']:g})",
                                res["overhead"]))
    return 0


def verdict_table(title: str, rows: list[dict]) -> Table:
    """Verdicts (or overheads): configuration, metric, change, noise floor, the verdict in words."""
    table = Table(title=title)
    for col in ("config", "metric", "statistic", "change", "noise floor", "verdict"):
        table.add_column(col, overflow="fold")
    for v in rows:
        table.add_row(v["config_id"], v["metric"], v.get("statistic_label", "-"),
                      "-" if v.get("change_pct") is None else f"{v['change_pct']:+.3g} %",
                      "-" if v.get("noise_floor_pct") is None else f"±{v['noise_floor_pct']:.2g} %",
                      short(v, v.get("unit_word", "runs")))
    return table


def show_run(store, run_id: str, as_json: bool, out) -> int:
    from ..analysis.describe import stats_rows
    from ..analysis.scan import scan_run
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
    rows = stats_rows({(meta["run_id"], m): s for m, s in streams.items()},
                      {meta["run_id"]: meta.get("config_id", "?")})[0]
    if as_json:
        print(json.dumps({"meta": meta, "events": events, "stats": rows}, indent=2, default=str))
        return 0
    out.print(Text.assemble((run_id, "bold"), f" status={meta.get('status')} attempt={meta['attempt']} "
                            f"{meta.get('reason') or ''}"))
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
    for name, watch in (meta.get("stressors_watch") or {}).items():
        out.print(f"  stressor {name}: {watch_words(watch)}", markup=False)
    table = Table(title="events")
    for col in ("kind", "t (s)", "action", "target", "planned (s)"):
        table.add_column(col)
    for kind, t_s, action, target, planned in events:
        table.add_row(kind, _fmt(t_s, 3), action or "", target or "", _fmt(planned, 3))
    out.print(table)
    units = {m.get("name"): m.get("unit") or "cycles" for m in (meta.get("metrics") or {}).values()}
    out.print(stats_table("samples (warm-up excluded)", rows, units, per_run=True))
    return 0


def watch_words(w: dict) -> str:
    """How a stressor did over the measured window (meta.json stressors_watch), in one line."""
    def pct(v):
        return "-" if v is None else f"{v:.0%}"

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
