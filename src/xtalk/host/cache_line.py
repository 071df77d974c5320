"""The cache line size from cache_probe.c's line test (points mode with line=): a random
cycle over twice the L1 with nodes 16, 32 ... 512 bytes apart, every stride once a round.
Nodes closer than a line share it, so some loads find their line still in the L1: the
latency rises with the stride up to the line size and is flat past it (set conflicts keep
the misses the same).

The rule, per run (the median latency of each stride): the line is the smallest stride s
(neither the first nor the widest) where the strides from s on are a plateau and the rise
into it is clear: the plateau's lowest latency is above the stride before s by CLEAR_X
times the plateau's own spread (its highest minus its lowest: what two strides that
should be equal differ by in this run) or more, and by RISE_MIN of the plateau or more.
A run where no stride passes says nothing. The line is answered where every run says the
same stride; else it is not, and `why` gives each run's latencies.
Why not "the first stride near the widest one's latency" (xtalk before issue 57): the rise
into the line is small (on the development host's AMD EPYC 3.6 ns at 32 B, 4.3 ns at
64 B, 4.2-4.4 ns past it: the 32 B stride at 0.83-0.89 of the widest one's), so a run in
which the L1 keeps fewer lines (a neighbour on a sibling thread, a preemption that cools
it) put the 32 B stride within 10 % of the widest and measured a 32 B line.
Caveat: a disturbance that lasts through every run moves all of them alike; the machine
check (calibration/caches_machine.py) is what voids those.
"""
from __future__ import annotations

import numpy as np

CLEAR_X = 1.5     # quiet runs on the development host: x1.7-5.6 at the line, x0.9 or less elsewhere
RISE_MIN = 0.05   # of the plateau's latency: quiet runs rise 10-20 % into the line


def run_latencies(meta: dict, samples: np.ndarray) -> dict[int, float]:
    """Median ns per load of each stride of one run (metric 2's samples: stride 16 << (i %
    line_strides)); {} where the run has no line test."""
    g = meta["guest_meta"]
    n = int(g.get("line_strides", 0))
    values = samples["value"][samples["metric"] == 2]
    per_load_ns = 1e9 / float(meta["freq_hz"]) / int(g.get("line_steps") or 1)
    return {16 << k: round(float(np.median(values[k::n])) * per_load_ns, 3) for k in range(n) if len(values[k::n])}


def estimate(lat: dict[int, float]) -> int | None:
    """The line of one run's stride latencies by the rule above; None where none is clear."""
    strides = sorted(lat)
    for i in range(1, len(strides) - 1):
        plateau = [lat[s] for s in strides[i:]]
        spread, rise = max(plateau) - min(plateau), min(plateau) - lat[strides[i - 1]]
        if rise >= CLEAR_X * spread and rise >= RISE_MIN * float(np.median(plateau)):
            return strides[i]
    return None


def _shown(lat: dict[int, float]) -> str:
    return ", ".join(f"{v:.2f}" for _, v in sorted(lat.items())) + " ns"


def line(runs: list[tuple[dict, np.ndarray]]) -> dict:
    """The line from these runs: bytes (None where the runs do not agree on one, or no
    line test ran), each run's latencies per stride and estimate, and why it is not answered."""
    per_run = [lat for lat in (run_latencies(m, s) for m, s in runs) if len(lat) > 2]
    found = [estimate(lat) for lat in per_run]
    out = {"bytes": None, "runs": [{"ns": {str(k): v for k, v in lat.items()}, "bytes": b}
                                   for lat, b in zip(per_run, found)], "clear_x": CLEAR_X, "why": None}
    if not per_run:
        return out | {"why": "no line test ran"}
    if len(set(found)) == 1 and found[0] is not None:
        return out | {"bytes": found[0]}
    strides = "/".join(str(s) for s in sorted(per_run[0]))
    said = "; ".join(f"{_shown(lat)}: {f'{b} B' if b else 'no clear rise'}" for lat, b in zip(per_run, found))
    return out | {"why": f"the line test's {len(per_run)} runs do not agree on a stride where the latency stops "
                         f"rising clearly (a rise {CLEAR_X:g}x the spread past it): at {strides} B {said}"}
