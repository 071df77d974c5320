"""`xtalk show ID`: a campaign (runs and per-configuration statistics with the change
versus the solo baseline) or, as CAMPAIGN/RUN, one run (metadata, events, statistics)."""
from __future__ import annotations

import json

from rich.table import Table

from ..analysis.gates import baseline_of, configs
from ..analysis.summary import change_pct, config_stats
from ..results.query import connect
from .common import add_out, find_campaign, console


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


def stats_table(title: str, rows: list[dict], base: dict[str, str | None]) -> Table:
    table = Table(title=title)
    for col in ("config", "metric", "runs", "n", "min", "q1", "median", "q3", "max", "mean", "sd",
                "median ns", "median vs base"):
        table.add_column(col, justify="left" if col in ("config", "metric") else "right",
                         no_wrap=col == "config")
    by_key = {(r["config_id"], r["metric"]): r for r in rows}
    for r in rows:
        b = by_key.get((base.get(r["config_id"]), r["metric"]))
        pct = change_pct(r["median"], b["median"]) if b and b is not r else None
        ns = r["median"] * r["ns_per_tick"] if r["ns_per_tick"] else None
        table.add_row(r["config_id"], r["metric"], str(r["runs"]), _fmt(r["n"]), _fmt(r["min"]),
                      _fmt(r["q1"]), _fmt(r["median"]), _fmt(r["q3"]), _fmt(r["max"]), _fmt(r["mean"]),
                      _fmt(r["sd"]), _fmt(ns), f"{pct:+.1f}%" if pct is not None else "")
    return table


def run(args) -> int:
    ident, _, run_id = args.id.partition("/")
    store = find_campaign(args.out, ident)
    con = connect(store)
    out = console()
    if run_id:
        return show_run(store, con, run_id, args.json, out)
    runs = store.runs()
    rows = config_stats(con)
    all_configs = configs(con)
    base = {cid: baseline_of(cfg, all_configs, "placement", "solo") for cid, cfg in all_configs.items()}
    if args.json:
        print(json.dumps({"campaign": store.info, "runs": runs, "stats": rows, "baseline": base},
                         indent=2, default=str))
        return 0
    out.print(f"[bold]{store.path.name}[/] — campaign {store.info['name']!r}, "
              f"created {store.info['created_at'][:19]}, {store.path}")
    table = Table(title="runs")
    for col in ("run", "status", "samples", "lost", "host noise", "reason"):
        table.add_column(col)
    for r in runs:
        lost = (r.get("lost_samples") or 0) + (r.get("ring_lost_samples") or 0)
        noise = r.get("noise") or {}
        noisy = ", ".join(f"cpu{c} {noise['cpus'][c]['foreign_pct']:.0f}%" for c in noise.get("noisy_cpus") or [])
        table.add_row(r["run_id"], r.get("status", "?"), _fmt(r.get("sample_count")), _fmt(lost),
                      noisy or ("-" if "cpus" in noise else "not measured"), r.get("reason") or "")
    out.print(table)
    out.print(stats_table("statistics per configuration (cycles; warm-up excluded; passing runs)", rows, base))
    return 0


def show_run(store, con, run_id: str, as_json: bool, out) -> int:
    meta = next((r for r in store.runs() if r["run_id"] == run_id), None)
    if meta is None:
        from ..errors import Problem, SpecError
        raise SpecError(run_id, [Problem("ID", f"no run {run_id!r} in {store.path.name}")])
    events = con.execute("SELECT kind, t_s, action, target, planned_s FROM events WHERE run_id = ? "
                         "ORDER BY host_ns", [run_id]).fetchall()
    stats = con.execute(
        "SELECT metric, count(*), min(value), median(value), max(value), avg(value) FROM samples "
        "WHERE run_id = ? GROUP BY metric", [run_id]).fetchall()
    if as_json:
        print(json.dumps({"meta": meta, "events": events, "stats": stats}, indent=2, default=str))
        return 0
    out.print(f"[bold]{run_id}[/] status={meta.get('status')} {meta.get('reason') or ''}")
    for key in ("config", "placement", "start_order", "freq_hz", "sample_count", "lost_samples",
                "ring_lost_samples", "started_at", "ended_at"):
        out.print(f"  {key}: {meta.get(key)}")
    for name, facts in (meta.get("guests") or {}).items():
        out.print(f"  guest {name}: cpus={facts.get('affinity')} sched={facts.get('sched')} "
                  f"{facts.get('sched_refused', '')}")
    table = Table(title="events")
    for col in ("kind", "t (s)", "action", "target", "planned (s)"):
        table.add_column(col)
    for kind, t_s, action, target, planned in events:
        table.add_row(kind, _fmt(t_s, 3), action or "", target or "", _fmt(planned, 3))
    out.print(table)
    table = Table(title="samples")
    for col in ("metric", "n", "min", "median", "max", "mean"):
        table.add_column(col, justify="right")
    for row in stats:
        table.add_row(*[_fmt(v) if not isinstance(v, str) else v for v in row])
    out.print(table)
    return 0
