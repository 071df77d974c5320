"""The headline: the answer in four lines, computed once here for every output (report.html,
report.md, `xtalk run`'s summary, `xtalk show`, report.json and `xtalk run --json`).

1. **machine**: whether this machine could answer at all (analysis/measurability.py):
   "cannot measure here: CPU 0 ran other work 47-78 % of each run ... — stop PID 1234 ...",
   first, before any verdict it may void; where it cannot, the verdict's undecided count
   says more runs will not help instead of asking for them, and a decided verdict says it
   is not to be relied on;
2. **runs**: how many passed, were degraded (kept, used by no statistic), failed (with
   what failed them in a word, `hung`, and the first one's reason) or were not run (planned,
   not stored): "6 of 6 runs passed", "no run passed: 6 of 6 failed (6 hung)";
3. **verdict**: the strongest one over the verdicts, the overhead and the boards rows:
   the largest significant change for the worse ("interference: timer_latency p99 +84 %
   on same-core (vs solo)"), else the largest significant one, else "no interference
   found in N comparisons", else "inconclusive: N of M comparisons undecided (about K
   runs per side would decide them)";
4. **worst**: per metric the worst case measured over its configurations (a missed
   deadline first, then the metrics with a deadline, then the times). A time (unit
   cycles or ns, kind not throughput): the maximum and the highest quantile that rests on
   at least 10 samples above it in some configuration (describe.py's `unresolved`; the
   tables mark the others '*'), against each of the spec's deadlines for it
   ("timer_latency: max 41 µs (same-core), p99.9 30 µs; vs deadline 100 µs: met, 0 of
   52,000 samples above" / "missed by 12 µs, 37 of 52,000 samples above (same-core
   37)"). Any other metric: the worst value in its own unit (the minimum of a throughput,
   the maximum of a count), no quantile and no deadline.
**gates**: only where the spec has gates (None otherwise): the overall and how many failed.

Caveat: runs that were not run are known from `xtalk run` (`not_run`) or from the plan kept
in campaign.json (`planned_runs`, analysis result `campaign`); a campaign still running
counts its runs to come as not run.
"""
from __future__ import annotations

from collections import Counter

from ..analysis import wording
from ..analysis.measurability import cannot_answer
from ..analysis.wording import in_ticks
from ..analysis.vcpus import worst_first
from .answer import SIGNIFICANT, anchor
from .configs import labels
from .tables import STAT_COLS

SHOWN = 3  # metrics whose worst case the headline shows unfolded (an import can have 47)
RELIABLE = ("p9999", "p999", "p99", "p90", "q3", "median")  # the highest first
QUANTILE_LABELS = dict(STAT_COLS)
SOURCES = {"verdicts": "v", "overhead": "o", "boards": "b"}  # result key: the answer rows' anchor prefix


def headline(res: dict, not_run: dict[str, str] | None = None) -> dict:
    """The headline of an analysis result; `not_run`: runs that never ran and why (from
    `xtalk run`), else those planned and not stored."""
    runs, verdict = runs_part(res, not_run), verdict_part(res)
    if verdict["state"] == "none" and runs["total"] and not runs["passed"] + runs["degraded"]:
        verdict["text"] = "no verdict: no run passed"
    return {"machine": machine_part(res), "runs": runs, "verdict": verdict, "worst": worst_part(res),
            "gates": gates_part(res)}


def machine_part(res: dict) -> dict:
    m = res.get("measurability") or {}
    return {"state": m.get("state", "unchecked"), "text": m.get("text", "not checked")}


def lines(head: dict) -> list[tuple[str, str, str, str]]:
    """The headline as (part, state, label, text) lines, in order, for the renderers: the
    runs (with the first failure's reason), the verdict, one line per metric's worst case
    (part `worst` for the first SHOWN, `worst-more` for the others, which a renderer may
    fold), the gates where there are gates."""
    runs, machine = head["runs"], head["machine"]
    out = [("machine", machine["state"], "machine", machine["text"]),
           ("runs", runs["state"], "runs", runs["text"] + (f"; first: {runs['first_failure']}"
                                                           if runs["first_failure"] else "")),
           ("verdict", "void" if head["verdict"].get("void") else head["verdict"]["state"], "verdict",
            head["verdict"]["text"])]  # void: decided on a machine that cannot measure, shown plain
    worst = [("worst" if i < SHOWN else "worst-more", "missed" if any(d["met"] is False for d in w["deadlines"])
              else "measured", "worst case", w["text"]) for i, w in enumerate(head["worst"])]
    out += worst or [("worst", "none", "worst case", "nothing measured")]
    gates = head["gates"]
    return out + ([("gates", gates["overall"], "gates", gates["text"])] if gates else [])


def not_passed(res: dict) -> dict[str, str]:
    """run id -> its status (and the file, for a run whose record cannot be read), of every
    stored run that did not pass (degraded runs passed, with a reason). A damaged file of the
    campaign itself (runs.ledger, spec.toml) is no run: the report's warnings say it."""
    out = {r["run_id"]: r["status"] for r in res["runs"] if r["status"] not in ("pass", "degraded")}
    out.update({d["run"]: f"{d['status']} ({d['file']})" for d in res["left_out"]
                if d["final"] and not d.get("campaign_file")})
    return out


def unstored(res: dict) -> dict[str, str]:
    stored = {r["run_id"] for r in res["runs"]} | {d["run"] for d in res["left_out"]}
    planned = (res.get("campaign") or {}).get("planned_runs") or []
    return {rid: "not run" for rid in planned if rid not in stored}


def runs_part(res: dict, not_run: dict[str, str] | None = None) -> dict:
    failed = not_passed(res)
    missing = unstored(res) if not_run is None else dict(not_run)
    missing = {k: v for k, v in missing.items() if k not in failed}
    degraded = {r["run_id"]: r.get("reason") or "" for r in res["runs"] if r["status"] == "degraded"}
    total = len({r["run_id"] for r in res["runs"]} | set(failed) | set(missing))
    passed = total - len(failed) - len(missing) - len(degraded)
    reasons = {r["run_id"]: r.get("reason") or "" for r in res["runs"]}
    whys = Counter(_why(status, reasons.get(run, "")) for run, status in failed.items())
    first = next((f"{run}: {reasons[run]}" for run in failed if reasons.get(run)), "")
    state = "failed" if failed or missing else "degraded" if degraded else "passed" if total else "none"
    parts = [(n, word) for n, word in ((len(degraded), "degraded"), (len(failed), "failed"),
                                       (len(missing), "not run")) if n]
    text = ("no run passed: " + ", ".join(f"{n} of {total} {word}" for n, word in parts) if total and not passed
            else f"{passed} of {total} run{'s' if total > 1 else ''} passed" + "".join(f", {n} {word}" for n, word in parts))
    if whys:
        text += " (" + ", ".join(f"{n} {why}" for why, n in whys.items()) + ")"
    return {"state": state, "total": total, "passed": passed, "degraded": len(degraded), "failed": len(failed),
            "not_run": len(missing), "text": text, "first_failure": first,
            "not_passed": {**failed, **missing}, "degraded_runs": degraded}


def _why(status: str, reason: str) -> str:
    """What a failed run's status says in a word: its status, or for `fail` the reason's
    first part (`hung`, `guest error`, ...)."""
    if status != "fail" or not reason:
        return status
    head = reason.split(":")[0].strip()
    return head if len(head) <= 40 else status


def _rows(res: dict) -> list[dict]:
    """Every verdict row that compares something (not a baseline's own row), with the
    anchor of its answer row."""
    return [dict(v, anchor=anchor(v["config_id"], v["metric"], prefix)) for key, prefix in SOURCES.items()
            for v in res.get(key) or [] if v["verdict"] != "baseline"]


def _size(v: dict) -> float:
    """How large a change is, for ranking: % where it has one, else points."""
    if v.get("change_pct") is not None:
        return abs(v["change_pct"])
    return abs(v.get("change") or 0) * 100


def _worse(v: dict) -> bool:
    c = v.get("change_pct") if v.get("change_pct") is not None else v.get("change")
    return bool(c) and (c > 0) == (v.get("better", "lower") == "lower")


def verdict_part(res: dict) -> dict:
    rows, named = _rows(res), labels(res)
    counts = dict(Counter(v["verdict"] for v in rows))
    bases = sorted({named.get(v["config_id"], v["config_id"]) for v in res.get("verdicts") or []
                    if v["verdict"] == "baseline"})
    nothing = (f"no verdict: only the baseline ran ({', '.join(bases)}), nothing to compare it with" if bases
               else "no verdict: no samples to compare")
    out = {"state": "none", "text": nothing,
           "rows": len(rows), "counts": counts, "metric": None, "config_id": None, "anchor": None}
    significant = sorted((v for v in rows if v["verdict"] in SIGNIFICANT), key=lambda v: (_worse(v), _size(v)),
                         reverse=True)
    m = res.get("measurability") or {}
    void = " — not to be relied on: this machine cannot measure (the machine line)"
    if significant:
        v = significant[0]
        void = void if cannot_answer(m, v["metric"]) else ""
        change = wording.change_size(v)
        against = (" (on- vs off-windows)" if v.get("design") == "paired" else
                   f" (vs {named.get(v['baseline'], v['baseline'])})" if v.get("baseline") else "")
        more = f" — {len(significant)} of {len(rows)} comparisons {v['verdict']}" if len(rows) > 1 else ""
        return dict(out, state=v["verdict"], metric=v["metric"], config_id=v["config_id"], anchor=v["anchor"],
                    void=bool(void),
                    text=f"{v['verdict']}: {v['metric']} {v.get('statistic_label', '')} {change} on "
                         f"{named.get(v['config_id'], v['config_id'])}{against}{more}{void}")
    if not rows:
        return out
    undecided = [v for v in rows if v["verdict"] == "inconclusive"]
    paired = " (on- vs off-windows)" if all(v.get("design") == "paired" for v in rows) else ""  # what was compared
    if not undecided:
        word = rows[0]["verdict"].replace("-", " ")
        void = void if any(cannot_answer(m, v["metric"]) for v in rows) else ""
        return dict(out, state="no-interference", void=bool(void), text=f"{word} found in {len(rows)} comparison"
                                                                  f"{'s' if len(rows) > 1 else ''}{paired}{void}")
    need = max((v.get("need_units") or 0 for v in undecided), default=0)
    cannot = all(cannot_answer(m, v["metric"]) for v in undecided)
    lost = sorted({v["metric"] for v in undecided if cannot_answer(m, v["metric"])})
    return dict(out, state="inconclusive",
                text=f"inconclusive: {len(undecided)} of {len(rows)} comparisons undecided"
                     + (" (this machine cannot answer: more runs will not help)" if cannot else
                        f" (about {need} {undecided[0].get('unit_word', 'runs')} per side would decide them"
                        + (f"; not {', '.join(lost)}: this machine cannot answer for it" if lost else "") + ")"
                        if need else paired) + (f", no change in {len(rows) - len(undecided)}"
                                           if len(undecided) < len(rows) else ""))


def _kinds(res: dict) -> dict[str, tuple[str, str]]:
    """metric -> (kind, better) from its verdict rows; a metric without one by its unit."""
    out = {v["metric"]: (v.get("kind", ""), v.get("better", "lower")) for v in res.get("verdicts") or []}
    for metric, unit in (res.get("units") or {}).items():
        out.setdefault(metric, ("duration", "lower") if in_ticks(unit) else ("throughput", "higher"))
    return out


def worst_part(res: dict) -> list[dict]:
    kinds, named, out = _kinds(res), labels(res), []
    by_metric: dict[str, list[dict]] = {}
    for r in res.get("stats") or []:
        if r.get("n"):
            by_metric.setdefault(r["metric"], []).append(r)
    for metric, rows in by_metric.items():
        unit = (res.get("units") or {}).get(metric, "cycles")
        kind, better = kinds.get(metric, ("duration", "lower"))
        time = in_ticks(unit) and kind != "throughput"
        key = "min" if better == "higher" and not time else "max"
        row = (min if key == "min" else max)(rows, key=lambda r: r[key])
        fmt = lambda x, r=row: wording.value(x, "ticks", r.get("ns_per_tick"), unit)  # noqa: E731
        entry = {"metric": metric, "config_id": row["config_id"], "config": named.get(row["config_id"],
                                                                                         row["config_id"]),
                 "kind": kind, "unit": unit, "time": time, "stat": key, "value": row[key],
                 "value_text": fmt(row[key]), "quantile": None, "quantile_value": None, "quantile_config_id": None,
                 "quantile_text": "",
                 "n": row["n"], "deadlines": []}
        if time:
            entry.update(_quantile(rows, fmt, named, row["config_id"]))
            entry["deadlines"] = _deadlines(res, metric, row)
        words = "max" if key == "max" else "min"
        entry["text"] = (f"{metric}: {words} {entry['value_text']} ({entry['config']})"
                         + (f", {entry['quantile_text']}" if entry["quantile_text"] else "")
                         + "".join(f"; {d['text']}" for d in entry["deadlines"]))
        out.append(entry)
    order = worst_first([w["metric"] for w in out], {w["metric"]: w["value"] if w["stat"] == "max" else -w["value"]
                                                     for w in out})
    place = {metric: i for i, metric in enumerate(order)}
    out.sort(key=lambda w: place[w["metric"]])  # a guest's vCPUs together, the worst first
    return sorted(out, key=lambda w: (not any(d["met"] is False for d in w["deadlines"]), not w["deadlines"],
                                      not w["time"]))


def _quantile(rows: list[dict], fmt, named: dict[str, str], max_config: str) -> dict:
    """The highest quantile that rests on at least 10 samples above it in some
    configuration, its largest value over those configurations (named where it is not the
    one with the maximum)."""
    for q in RELIABLE:
        fit = [r for r in rows if r.get(q) is not None and q not in (r.get("unresolved") or [])]
        if fit:
            row = max(fit, key=lambda r: r[q])
            where = "" if row["config_id"] == max_config else f" ({named.get(row['config_id'], row['config_id'])})"
            return {"quantile": QUANTILE_LABELS[q], "quantile_value": row[q], "quantile_config_id": row["config_id"],
                    "quantile_text": f"{QUANTILE_LABELS[q]} {fmt(row[q], row)}{where}"}
    return {}


def _deadlines(res: dict, metric: str, worst: dict) -> list[dict]:
    """Each deadline of the metric: the worst maximum against it, met or missed, and the
    samples above it over every configuration."""
    out = []
    groups: dict[tuple, list[dict]] = {}
    for d in res.get("deadlines") or []:
        if d["metric"] == metric:
            groups.setdefault((d["unit"], d["deadline"]), []).append(d)
    for (unit, limit), rows in groups.items():
        limit_text = wording.duration(limit) if unit == "ns" else f"{wording.num(limit)} cycles"
        mine = next((d for d in rows if d["config_id"] == worst["config_id"]), rows[0])
        worst_v = mine.get("wcet_ns") if unit == "ns" else mine.get("wcet")
        above = sum(d["above"] or 0 for d in rows)
        n = sum(d["n"] or 0 for d in rows)
        missed = [d for d in rows if d["above"]]
        if worst_v is None:
            text, met = f"vs deadline {limit_text}: not comparable (no counter frequency)", None
        elif not missed:
            text, met = f"vs deadline {limit_text}: met, 0 of {wording.num(n)} samples above", True
        else:
            over = wording.duration(worst_v - limit) if unit == "ns" else f"{wording.num(worst_v - limit)} cycles"
            where = ", ".join(f"{d['config_id']} {wording.num(d['above'])}" for d in missed)
            text = (f"vs deadline {limit_text}: missed by {over}, {wording.num(above)} of {wording.num(n)} samples above "
                    f"({where})")
            met = False
        out.append({"deadline": limit, "unit": unit, "deadline_text": limit_text, "met": met, "above": above,
                    "n": n, "text": text})
    return out


def gates_part(res: dict) -> dict | None:
    """The gates' outcome, only where the spec has gates."""
    if res.get("overall") in (None, "NO GATES"):
        return None
    gates = res.get("gates") or []
    failed = sum(not g["passed"] for g in gates)
    return {"overall": res["overall"], "failed": failed, "total": len(gates),
            "text": res["overall"] + (f": {failed} of {len(gates)} failed" if failed else
                                      f": {len(gates)} of {len(gates)} passed" if gates else "")}
