"""Campaigns xtalk derives from a user's spec and runs itself (calibrate, the channel
study, a worst-case search's trials and its confirmation): the spec's backend, CPUs and
run settings kept, the rest made by the caller; run and stored like any campaign, then
analysed. A derived campaign whose runs did not all pass is an error: its numbers would
rest on fewer runs than asked for. A command of several derived campaigns holds the spec's
CPUs from its first to its last (holding_cpus): no other xtalk takes them in between."""
from __future__ import annotations

import copy
from contextlib import contextmanager
from pathlib import Path

import tomli_w

from ..analysis.pipeline import Options, analyze
from ..plugins import backend_class, check_backend_options
from .campaign import run_campaign
from ..errors import InfrastructureError
from ..host.leases import Holder, Leases, cpu_leases
from .preflight import spec_checks
from ..spec import catalogue
from ..spec.load import parse_campaign
from ..spec.model import Campaign

RUN_KEPT = ("sched", "priority", "boot_timeout_s", "grace_s", "cache_sizes")  # run settings a derived campaign keeps
SET_UP_MAX_S = 120  # how long the measurer waits for the stressors to allocate and zero their buffers


@contextmanager
def holding_cpus(spec: Campaign, out: Path, wait: bool = False):
    """Every CPU of the spec held for the whole command (each of its campaigns takes them
    again, in this process); refused, or with `wait` queued, where another xtalk holds one."""
    scope = backend_class(spec.backend.kind).cpu_scope(spec.backend.options)
    with Leases(Holder.me(spec.name, f"results in {out}"), wait) as leases:
        leases.take(cpu_leases(scope, spec.cpus))
        yield


def base(raw: dict, name: str, duration_s: float, runs: int) -> dict:
    """A spec named `name` with the user's backend, CPUs and run settings, runs of
    `duration_s`, `runs` repetitions; the caller adds measurer, stressors and matrix."""
    keep = {k: copy.deepcopy(raw[k]) for k in ("backend", "cpus", "housekeeping_cpus") if k in raw}
    run = {k: v for k, v in (raw.get("run") or {}).items() if k in RUN_KEPT}
    run.update(duration_s=duration_s, repetitions=runs, start_gap_s=0.2)
    return {"name": name, **keep, "run": run}


def stressors_first(spec: dict) -> dict:
    """Start the stressors first and the measurer once each has set up (XT META ready=1):
    a stressor over a large buffer (llc*2 of a big LLC) would otherwise spend a short run
    zeroing it, and the measurer would be measured next to nothing. Only probe benches say
    so (guests/lib/driver.c); next to another (the steal injector) the measurer starts after
    the usual short gap."""
    probe = catalogue.load().suites["probe"].benches
    if all(s["bench"] in probe for s in spec.get("stressors", [])):
        spec["run"].update(start_gap_s=SET_UP_MAX_S, wait_for_stressors=True)
    spec.setdefault("matrix", {})["start_order"] = ["stressor-first"]
    return spec


def run_spec(spec: dict, out: Path, what: str = "calibration campaign", study: dict | None = None):
    """Run a derived spec (checked as a user's spec is) and analyse it (no EVT, no extras);
    `study`: what the configurations mean, kept in campaign.json for the report."""
    return analyze(run_derived(spec, out, what, study).store, Options(evt=False, extras=False))


def run_derived(spec: dict, out: Path, what: str, study: dict | None = None):
    """Run a derived spec, checked as a user's spec is; its CampaignResult."""
    text = tomli_w.dumps(spec)
    model, raw = parse_campaign(text, spec["name"], check_backend_options, checks=spec_checks())
    result = run_campaign(model, raw, text, spec["name"], out, study=study, label=what)
    failed = [r for r in result.runs if r["status"] != "pass"]
    if failed:
        raise InfrastructureError(f"{what} {result.store.path.name}: {len(failed)} of "
                                  f"{len(result.runs)} runs did not pass; first: {failed[0]['run_id']}: "
                                  f"{failed[0].get('reason') or failed[0]['status']}")
    return result
