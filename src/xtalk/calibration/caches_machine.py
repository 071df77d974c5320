"""Whether the machine could answer `xtalk host caches`' questions: per answer, the machine
line (analysis/measurability.py: `measurable`, `doubtful`, `cannot`, with the busiest
processes named) of the runs that made it, over both CPUs of the run (the measured one,
and the neighbour's, which shares caches with it: other work there takes part of a shared
level, and on a cloud VM whose vCPUs are at times a core's two threads, its L1 and L2).

- levels: the curve's run (every size and latency, and the memory latency);
- line: the sharing campaign's solo runs (the line test);
- sharing: all its runs; bandwidth: its solo runs and those beside the copy past every level.
Each run's noise record (host/noise.py) counts the hypervisor's steal (/proc/stat) as other
work; where it took a share of the time watched, the text says so (no process to name).
An answer the machine cannot give is kept with its numbers but not given as a fact: the
output says why instead, and sizes do not resolve against voided levels (spec/run_caches.py).
The levels are not answered either where the curve is unsteady (host/cache_curve.py), or where
L1 or L2 measured more than CLAIM_X off the size the machine reports: one of the two is wrong
(on a cloud VM whose "private" L2 is a physical core's, shared with the threads of other
guests that this machine cannot see, L2 measured 249-575 KiB of a reported 512 KiB in 27
back-to-back curves of an idle machine), so neither is given as the hardware's.
Caveat: the LLC is left out of that check (shared with other tenants by design, so
measured from a tenth of its report up on a cloud VM); measurability's thresholds (FOREIGN_*_PCT) are those of any campaign, not tuned to
what moves each answer here.
"""
from __future__ import annotations

import numpy as np

from ..analysis.effects import Rules
from ..analysis.measurability import ORDER, assess
from ..spec.run_caches import differs

ANSWERS = {"levels": "the levels' sizes and latencies and the memory latency", "line": "the line size",
           "sharing": "which levels are shared", "bandwidth": "the bandwidth"}
CLAIM_X = 1.25  # L1 or L2 measured within 25 % of its reported size agrees with the report
CHECKED_LEVELS = (1, 2)
STEAL_SHOWN_PCT = 1.0  # the hypervisor's steal is named from this share of the time watched


def _steal_pct(metas: list[dict], cpus: list[int]) -> float:
    """Median over the runs of the largest share of a CPU's time the hypervisor took."""
    shares = []
    for meta in metas:
        noise = meta.get("noise") or {}
        wall = noise.get("wall_s") or 0.0
        got = [(noise.get("cpus") or {}).get(str(c)) or {} for c in cpus]
        if wall > 0 and got:
            shares.append(max(100 * (c.get("steal_s") or 0.0) / wall for c in got))
    return float(np.median(shares)) if shares else 0.0


def judge(host: dict, metas: list[dict], cpus: list[int]) -> dict:
    """The machine line of these runs (their meta.json) over `cpus`: state, text, busiest,
    steal_pct."""
    m = assess(host, [{"measurer": {"cpus": cpus}, "noise": meta.get("noise")} for meta in metas if meta.get("noise")],
               {}, [], {}, Rules())
    steal = round(_steal_pct(metas, cpus), 1)
    text = m["text"] + (f"; the machine's own hypervisor took {steal:g} % of a CPU's time (steal, /proc/stat), "
                        f"median of the runs" if steal >= STEAL_SHOWN_PCT and m["state"] != "measurable" else "")
    return {"state": m["state"], "text": text, "busiest": m["busiest"], "steal_pct": steal}


def machine(host: dict, groups: dict[str, list[dict]], cpus: list[int]) -> dict:
    """Per answer of ANSWERS (`groups`: the meta.json of the runs that made it) its machine
    line; `cannot` and `doubtful` list the answers in those states; state and text: the worst."""
    answers = {name: judge(host, metas, cpus) for name, metas in groups.items() if metas}
    if not answers:
        return {"state": "unchecked", "text": "not checked: no run measured this host's CPUs", "answers": {},
                "cannot": [], "doubtful": []}
    worst = max(answers.values(), key=lambda a: ORDER.index(a["state"]))
    return {"state": worst["state"], "text": worst["text"], "answers": answers,
            "cannot": [n for n, a in answers.items() if a["state"] == "cannot"],
            "doubtful": [n for n, a in answers.items() if a["state"] == "doubtful"]}


def claim_doubt(levels: list[dict], reported: dict[str, int], unsteady: str | None) -> str | None:
    """Why the measured levels cannot be given as the hardware's, apart from the machine
    line: the curve unsteady, or L1 or L2 more than CLAIM_X off its reported size; None where neither."""
    if unsteady:
        return unsteady
    off = []
    for lv in levels:
        claim = reported.get(f"l{lv['level']}") if lv["level"] in CHECKED_LEVELS else None
        if differs(lv["size_bytes"], claim, CLAIM_X):
            off.append(f"L{lv['level']} measured {lv['size_bytes'] / 1024:.0f} KiB where the machine reports "
                       f"{claim / 1024:.0f} KiB")
    return ("; ".join(off) + f" (more than {CLAIM_X:g}x apart: the level is shared with work this machine does "
            "not show, or the report is wrong)") if off else None


def doubt_levels(m: dict, why: str | None) -> dict:
    """The machine line `m` with the levels not answered for `why` (claim_doubt), where it says."""
    if not why or "levels" not in m["answers"] or "levels" in m["cannot"]:
        return m
    line = m["answers"]["levels"]
    answers = m["answers"] | {"levels": line | {"state": "cannot", "text": why}}
    return m | {"state": "cannot", "text": answers["levels"]["text"], "answers": answers,
                "cannot": m["cannot"] + ["levels"], "doubtful": [n for n in m["doubtful"] if n != "levels"]}


def void(fact: dict) -> dict:
    """The record's answers the machine cannot give, taken out of it (line_bytes None; each
    voided answer's `why`), their numbers kept (the levels, the line test, the bandwidth)."""
    m = fact["machine"]
    fact["voided"] = {name: f"the machine cannot answer for {ANSWERS[name]}: {m['answers'][name]['text']}"
                      for name in m["cannot"]}
    if "line" in m["cannot"] and fact.get("line"):
        fact["line"] = fact["line"] | {"measured_bytes": fact["line"]["bytes"], "bytes": None,
                                       "why": fact["voided"]["line"]}
    return fact
