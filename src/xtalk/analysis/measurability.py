"""Whether this machine could answer the campaign's questions at all: the verdict before any
other. Four checks, each `measurable`, `doubtful` or `cannot`:

- **cpus**: the measured CPUs' time on work outside the run (host/noise.py, per run), with
  the busiest processes outside it that may run there. Other work on the measured CPU
  is interference the spec did not ask about: more runs measure it again.
- **baseline**: the reference (solo) configuration's run-to-run spread per metric, of the
  statistic its verdicts judge (a latency's p99, a stolen share: not its gaps' median), in
  % of a ratio or in points of a share, against the change the verdicts call negligible: a
  baseline that varies more than SPREAD_CANNOT_PCT (SPREAD_CANNOT_POINTS) cannot show a
  change smaller than itself, and one whose "no interference" answer would need more than
  MANY_RUNS runs a side is doubtful.
- **deadline**: a deadline the reference configuration misses alone (over MISS_ALONE of
  its samples): no neighbour can be blamed or cleared for that deadline here.
- **host**: host facts that weaken a claim: real-time throttling of spinning real-time
  workloads (doubtful); the host being itself a virtual machine (a caveat only: the checks
  above measure what its hypervisor did to these runs).
The campaign's state is the worst of them; `unchecked` where xtalk saw no host (imported
logs) and no run measured its CPUs (a remote backend). A `cannot` of one metric's reference
(its spread, a deadline it misses alone) voids that metric's answers only
(`cannot_metrics`, cannot_answer): a pointer chase whose solo runs vary with the host's
cache sharing does not void the qsort beside it. Caveat: "outside the run" is what
host/noise.py cannot attribute to the run (interrupts, a hypervisor's own threads count).
"""
from __future__ import annotations

import math

import numpy as np

from ..host.metadata import rt_block_us
from ..host.noise import NOISY_PCT
from . import inference
from .effects import Rules
from .kinds import Stat, transform
from .wording import duration, num, share

FOREIGN_CANNOT_PCT = 20.0  # median share of a measured CPU on other work: cannot measure
FOREIGN_DOUBT_PCT = NOISY_PCT  # a run host/noise.py calls noisy
SPREAD_CANNOT_PCT = 25.0   # the reference's run values vary more than this (sd, %)
SPREAD_CANNOT_POINTS = 10.0  # a share's (stolen time's) run values vary more than this (sd, points)
MANY_RUNS = 50             # a "no interference" answer needing more runs per side than this: doubtful
MISS_ALONE = 0.01          # a deadline missed alone on more than 1 % of the samples
ORDER = ("measurable", "unchecked", "doubtful", "cannot")


def assess(host: dict, runs: list[dict], units: dict, deadlines: list[dict],
           baselines: dict[str, str | None], rules: Rules, window: str = "run") -> dict:
    """state, text (one sentence: what is wrong and what to change, or what was checked),
    checks (check, state, text, fix), busiest (the processes named); `units`: the reference
    configurations' run values (reference_units); `window`: what each of `runs` was, in
    the text ("3 s watch" for `xtalk host check`)."""
    checks = [c for c in (_cpus(runs, window), *_baseline(units, rules),
                          *_deadlines(deadlines, baselines), *_host(host, runs)) if c]
    if not checks:
        return {"state": "unchecked", "text": "not checked: xtalk did not see this host's CPUs during the runs",
                "checks": [], "busiest": []}
    worst = max(checks, key=lambda c: ORDER.index(c["state"]))
    bad = [c for c in checks if c["state"] == worst["state"]]
    # a check of one metric's reference (its spread, its deadline) voids that metric's answers only
    cannot_all = any(c["state"] == "cannot" and not c.get("metric") for c in checks)
    cannot_metrics = [] if cannot_all else sorted({c["metric"] for c in checks if c["state"] == "cannot"})
    if worst["state"] == "measurable":
        text = "measurable: " + "; ".join(c["text"] for c in checks)
    else:
        word = ("doubtful" if worst["state"] != "cannot" else
                f"cannot measure {', '.join(cannot_metrics)} here" if cannot_metrics else "cannot measure here")
        fixes = list(dict.fromkeys(c["fix"] for c in bad if c.get("fix")))
        text = f"{word}: " + "; ".join(c["text"] for c in bad) + (f" — {'; '.join(fixes)}" if fixes else "")
    busiest = next((c.get("busiest") for c in checks if c["check"] == "cpus"), None) or []
    return {"state": worst["state"], "text": text, "checks": checks, "busiest": busiest,
            "cannot_metrics": cannot_metrics}


def cannot_answer(m: dict, metric: str | None) -> bool:
    """Whether the machine cannot answer for `metric`: every metric where a campaign-wide
    check cannot (other work on the measured CPUs), else the metrics named."""
    if m.get("state") != "cannot":
        return False
    return not m.get("cannot_metrics") or metric in m["cannot_metrics"]


def _cpus(runs: list[dict], window: str) -> dict | None:
    shares, busiest, wall = [], {}, 0.0
    cpus: set[int] = set()
    for run in runs:
        noise = run.get("noise") or {}
        mine = [c for c in (run.get("measurer") or {}).get("cpus") or () if str(c) in (noise.get("cpus") or {})]
        if not mine:
            continue
        cpus.update(mine)
        shares.append(max(noise["cpus"][str(c)]["foreign_pct"] for c in mine))
        wall += noise.get("wall_s") or 0.0
        for p in noise.get("busiest") or ():
            key = (p["pid"], p["command"])
            busiest[key] = busiest.get(key, 0.0) + p["cpu_s"]
    if not shares:
        return None
    median, lo, hi = float(np.median(shares)), min(shares), max(shares)
    named = ", ".join(str(c) for c in sorted(cpus))
    top = [{"pid": pid, "command": cmd, "pct": round(100 * s / wall, 1) if wall else None}
           for (pid, cmd), s in sorted(busiest.items(), key=lambda kv: -kv[1])[:3]]
    state = ("cannot" if median > FOREIGN_CANNOT_PCT else "doubtful" if median > FOREIGN_DOUBT_PCT
             else "measurable")
    if state == "measurable":
        return {"check": "cpus", "state": state, "busiest": top, "median_pct": round(median, 1),
                "text": f"CPU{'s' if len(cpus) > 1 else ''} {named} free (other work {share(median)} of a {window}, "
                        f"median)"}
    span = share(lo) if lo == hi else f"{num(lo)}-{share(hi)}"
    who = ", ".join(f"PID {p['pid']} ({p['command']}" + (f", {share(p['pct'])} of the time watched)" if p["pct"]
                                                          is not None else ")") for p in top)
    return {"check": "cpus", "state": state, "busiest": top, "median_pct": round(median, 1),
            "text": f"CPU{'s' if len(cpus) > 1 else ''} {named} ran other work {span} of each {window} "
                    f"(median {share(median)}){'; busiest outside the run: ' + who if who else ''}",
            "fix": (f"stop {'or move PID ' + str(top[0]['pid']) if top else 'the other work'}"
                    f"{' (xtalk host check names it)' if not top else ''}, or isolate CPU{'s' if len(cpus) > 1 else ''} "
                    f"{named} (isolcpus=) for the campaign" + ("; more runs will not help" if state == "cannot" else ""))}


def reference_units(ctx, per_run: list[dict], baselines: dict[str, str | None]) -> dict:
    """{(reference configuration, metric): (one value a run of the statistic its verdicts
    judge, that statistic)}: a stolen share's, not its gaps' median (verdict.Context)."""
    refs = {b for b in baselines.values() if b}
    pairs = sorted({(r["config_id"], r["metric"]) for r in per_run if r["config_id"] in refs})
    return {(cid, m): (ctx.primary_values(cid, m), ctx.infos[m].kind.primary) for cid, m in pairs if m in ctx.infos}


def _spread(values: list[float], stat: Stat, rules: Rules) -> tuple[float, str, int | None] | None:
    """(the sd of the runs' values in % of a ratio or in points of a share, its words, the
    runs a side a "no interference" answer within the negligible change needs)."""
    scaled, scale = transform(values, stat)
    mean = float(np.mean(values))
    margin = rules.margin(stat, scale, mean)
    if len(scaled) < 2 or margin is None:
        return None
    sd = float(np.std(scaled, ddof=1))
    if scale == "log":
        size = 100 * math.expm1(sd)
        return size, f"±{num(size, False)} %", inference.units_needed(sd, margin, 0.05, power=0.5)
    if stat.unit in ("share", "fraction"):
        return 100 * sd, f"±{num(100 * sd, False)} points", inference.units_needed(sd, margin, 0.05, power=0.5)
    size = 100 * sd / abs(mean) if mean else math.inf
    return size, f"±{num(size, False)} %", inference.units_needed(sd, margin, 0.05, power=0.5)


def _baseline(units: dict, rules: Rules) -> list[dict]:
    out = []
    for (cid, metric), (values, stat) in sorted(units.items(), key=lambda kv: kv[0]):
        spread = _spread(values, stat, rules)
        if spread is None:
            continue
        size, said, need = spread
        share = stat.unit in ("share", "fraction")
        name = f"{metric} ({stat.label})" if stat.key != "median" else metric
        what = f"{cid}'s {name} varies {said} run to run ({len(values)} runs)"
        negligible = f"±{rules.negligible_points:g} points" if share else f"±{rules.negligible_pct:g} %"
        check = {"check": "baseline", "config_id": cid, "metric": metric, "sd": round(size, 2),
                 "sd_unit": "points" if share else "%"}
        if size > (SPREAD_CANNOT_POINTS if share else SPREAD_CANNOT_PCT):
            out.append(check | {"state": "cannot", "text": what,
                                "fix": "find what moves the reference run to run (other work, frequency, the host's "
                                       "own hypervisor); more runs will not help"})
        elif need is None or need > MANY_RUNS:
            out.append(check | {"state": "doubtful",
                                "text": f"{what}: showing that a change is under {negligible} (the negligible "
                                        f"change) would take {f'about {need}' if need else 'hundreds of'} runs a side"})
        else:
            out.append(check | {"state": "measurable", "text": f"{cid}'s {name} steady ({said} run to run)"})
    if len(out) > 1 and all(c["state"] == "measurable" for c in out):  # one line for all the steady ones
        worst = max(out, key=lambda c: (c["sd_unit"] == "%", c["sd"]))
        said = f"±{num(worst['sd'], False)} {worst['sd_unit']}"
        return [dict(worst, text=f"reference steady (at most {said} run to run, {worst['metric']})")]
    return out


def limit(deadline: dict) -> str:
    """A deadline as a duration (100 µs), or in its own unit (cycles)."""
    value, unit = deadline["deadline"], deadline["unit"]
    return duration(value) if unit == "ns" else f"{value:g} {unit}"


def _deadlines(deadlines: list[dict], baselines: dict[str, str | None]) -> list[dict]:
    refs = {b for b in baselines.values() if b}
    out = []
    for d in deadlines:
        if d["config_id"] in refs and d.get("rate") is not None and d["rate"] > MISS_ALONE:
            out.append({"check": "deadline", "state": "cannot", "config_id": d["config_id"], "metric": d["metric"],
                        "text": f"{d['metric']} misses its {limit(d)} deadline alone "
                                f"({d['config_id']}: {share(100 * d['rate'])} of {d['n']:,} samples)",
                        "fix": "no neighbour can be blamed or cleared for a deadline missed alone: a longer "
                               "deadline, a faster measurer, or a quieter host"})
    return out


def _host(host: dict, runs: list[dict]) -> list[dict]:
    if not host:
        return []
    out = []
    kvm = host.get("kvm") or {}
    if kvm.get("emulates_ring0") or kvm.get("kind") == "kvm_pvm":
        out.append({"check": "host", "state": "measurable",  # a caveat: the checks above measured its effect
                    "text": "the host is itself a virtual machine (its hypervisor's work on these CPUs is "
                            "invisible to xtalk)"})
    iso = host.get("isolation") or {}
    spinning = {g.get("sched") for r in runs for g in (r.get("guests") or {}).values()} & {"fifo", "rr"}
    if spinning and rt_block_us(iso) is not None:
        out.append({"check": "host", "state": "doubtful",
                    "text": "the kernel throttles real-time tasks (kernel.sched_rt_runtime_us)",
                    "fix": "sysctl -w kernel.sched_rt_runtime_us=-1 for the campaign"})
    return out


def word_undecided(rows: list[dict], m: dict) -> list[dict]:
    """Where the machine cannot answer for its metric, an undecided row says so instead of
    asking for more runs (they would measure the same machine again)."""
    return [dict(r, need_units=None, reason=f"{r.get('reason', '')}; the machine cannot answer: more runs will "
                 "not help (see measurability)") if r.get("verdict") == "inconclusive"
            and cannot_answer(m, r.get("metric")) else r for r in rows]
