"""A guest's vCPUs in the results: metric <name>_vcpu<N> is vCPU N's copy of <name> (a
bench run on each vCPU of a guest with several, guests/lib/driver.c); <name>_t<N> is
thread N's, a thread per CPU (cyclictest_t<N> in a Linux-RT guest of several vCPUs:
thread N on vCPU N).

`worst_first` orders metric names so that the vCPU copies of one metric stand together,
where the first of them stood, the worst vCPU first, as rteval puts the worst CPU first;
any other metric keeps its place. "Worst" is what the caller says (the headline's worst
case: the largest maximum of a time, the smallest minimum of a throughput).
"""
from __future__ import annotations

import re

VCPU_METRIC = re.compile(r"(?P<base>.+)_(?:vcpu|t)(?P<vcpu>\d+)")


def vcpu_of(metric: str) -> tuple[str, int | None]:
    """(the metric it is a copy of, its vCPU), or (metric, None) for a metric of one vCPU."""
    m = VCPU_METRIC.fullmatch(metric)
    return (m["base"], int(m["vcpu"])) if m else (metric, None)


def worst_first(metrics: list[str], badness: dict[str, float]) -> list[str]:
    """metrics, the vCPU copies of each base metric together at the first one's place,
    ordered by badness (largest first; vCPU number on ties)."""
    groups: dict[str, list[str]] = {}
    for m in metrics:
        base, vcpu = vcpu_of(m)
        groups.setdefault(base if vcpu is not None else f"\0{m}", []).append(m)
    out = []
    for key, members in groups.items():
        if key.startswith("\0"):
            out += members
        else:
            out += sorted(members, key=lambda m: (-badness.get(m, float("-inf")), vcpu_of(m)[1]))
    return out
