"""The host's own load on the measured CPUs, and whether two sets of runs (two campaigns
compared) ran under loads so different that a difference between them may be the host's.

host/noise.py records per run, per CPU, the share of the run spent on work outside it
(`noise.cpus[cpu].foreign_pct`). Within a campaign the configurations' runs interleave, so
a host that gets busier weighs on all of them alike; two campaigns run at different times
have no such protection: the same campaign run once on a quiet host and once next to a
build is "different" for the build's sake. Caveat: "outside the run" is whatever the run
did not start; a hypervisor's own kernel threads count as foreign, so two backends with
different housekeeping differ here too (it is still a difference the spec did not ask about).
"""
from __future__ import annotations

import numpy as np

# median share of the measured CPU's time on foreign work; farther apart than this, a
# "different" between two campaigns is not told as the system's
CONFOUND_POINTS = 10.0


def measured_cpu_load(runs: list[dict]) -> float | None:
    """Median over runs of the foreign share (%) of the measurer's busiest CPU; None where no
    run recorded it."""
    shares = []
    for run in runs:
        cpus = (run.get("noise") or {}).get("cpus") or {}
        mine = [cpus[str(c)]["foreign_pct"] for c in (run.get("measurer") or {}).get("cpus") or ()
                if str(c) in cpus and cpus[str(c)].get("foreign_pct") is not None]
        if mine:
            shares.append(max(mine))
    return float(np.median(shares)) if shares else None


def load_difference(runs_a: list[dict], runs_b: list[dict]) -> dict | None:
    """Both sides' measured-CPU load (`a_pct`, `b_pct`) and whether they differ by more than
    CONFOUND_POINTS (`confounded`); None where a side did not record it."""
    a, b = measured_cpu_load(runs_a), measured_cpu_load(runs_b)
    if a is None or b is None:
        return None
    return {"a_pct": round(a, 1), "b_pct": round(b, 1), "confounded": abs(a - b) > CONFOUND_POINTS}
