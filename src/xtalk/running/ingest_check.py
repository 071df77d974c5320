"""Before a campaign: does the results directory's file system take the samples its
measurers plan to write?

A measurer's planned sample rate is known where its bench is paced by a parameter
(RATE_PARAMS: timer_latency's period_us, cyclictest's interval_us, ring_flood's rate),
from the spec or the catalogue's default, times its vCPUs for a bench run on each. Where
one plans at least FLOOR samples a second, the file system's rate is measured there
(results/write_rate.py: once per file system) and each configuration planning more is
named in a warning: the consumer can store no more than that, and what it cannot take
in time is lost (counted, located and shown per run, never silent). Benches paced by
nothing (as fast as they can) plan no rate and are not checked.
Caveat: the measured rate is a short append's (mostly the page cache): a long run can
be held to the disk's own rate, lower.
"""
from __future__ import annotations

from pathlib import Path

from ..results.write_rate import in_memory, sample_write_rate
from ..spec import catalogue
from ..spec.plan import GuestPlan, RunPlan

FLOOR = 1e6  # samples/s below which no file system xtalk runs on is measured
RATE_PARAMS = {"period_us": lambda v: 1e6 / v, "interval_us": lambda v: 1e6 / v, "rate": lambda v: v}


def planned_rate(guest: GuestPlan) -> float | None:
    """Samples per second the guest's bench plans to write, where a parameter paces it."""
    bench = catalogue.load().bench(guest.bench, tuple(catalogue.load().suites))
    if bench is None:
        return None
    for key, rate in RATE_PARAMS.items():
        if key in bench.params:
            value = guest.params.get(key, bench.params[key].default)
            try:
                per_vcpu = rate(float(value)) if value is not None and float(value) > 0 else None
            except (TypeError, ValueError):  # a value the spec check refuses on its own
                return None
            return per_vcpu * (guest.vcpus if bench.smp else 1) if per_vcpu else None
    return None


def ingest_warnings(runs: list[RunPlan], out: Path) -> list[str]:
    """One line per configuration planning more samples a second than `out`'s file system takes."""
    planned = {r.config_id: (rate, r.measurer) for r in runs if (rate := planned_rate(r.measurer)) and rate >= FLOOR}
    if not planned:
        return []
    takes = sample_write_rate(out)
    if takes is None:  # nothing can be written there: the campaign's start says so
        return []
    fix = "plan fewer samples (the results are in memory already: a busy host takes fewer)" if in_memory(out) \
        else "put the results on a faster file system (--out /dev/shm/...) or plan fewer samples"
    return [f"{config}: the measurer ({guest.bench}) plans {rate / 1e6:.3g} M samples/s, more than the file system "
            f"of {out} takes here ({takes / 1e6:.3g} M samples/s, measured now): samples it cannot store in time "
            f"are lost (counted and shown per run); {fix}"
            for config, (rate, guest) in planned.items() if rate > takes]
