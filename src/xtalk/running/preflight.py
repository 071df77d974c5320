"""Everything xtalk can check in a campaign spec before anything starts, beyond the
spec's own model and rules (xtalk.spec.load): benches, parameters and the metrics of
deadlines and gates against the catalogue the guest programs print
(xtalk.spec.workloads), guest images of the user's against what the backend boots
(xtalk.spec.images), what the backend refuses on this host (Backend.check_spec:
CPUs the host lacks), and an [instrument]'s kind and options (xtalk.instruments). Every command that loads a spec (spec check, run, run --dry-run,
calibrate) loads it with these checks.
"""
from __future__ import annotations

from collections import Counter
from functools import partial

from pydantic import ValidationError

from ..plugins import backend_class, backend_kinds
from ..instruments import option_problems as instrument_problems
from ..spec.plan import plan
from ..spec import catalogue
from ..spec.images import Booted, image_problems
from ..spec.load import Checks
from ..spec.model import Campaign
from ..spec.workloads import backend_of, bench_table_problems, metric_problems, workload_problems


def suites_of(kind: str, options: dict, host: bool = False) -> tuple[str, ...] | None:
    """The suites the backend's guests run, or (host) its host stressors."""
    cls = backend_class(kind)
    return (cls.host_suites(options) if host else cls.suites(options)) if cls else None


def booted_by(kind: str, options: dict) -> Booted | None:
    """What the backend boots; where it boots no image, the refusal names those that do."""
    cls = backend_class(kind)
    if cls is None:
        return None
    if not cls.no_images:
        return Booted(cls.guest_arch(options), "")
    booting = [k for k in backend_kinds() if not backend_class(k).no_images]
    return Booted(cls.guest_arch(options), f"{cls.no_images}: use backend kind {' or '.join(booting)}")


def backend_problems(raw: dict) -> list[tuple[tuple, str]]:
    cls = backend_class(backend_of(raw)[0])
    return cls.check_spec(raw) if cls else []


def shared_cpu_problems(raw: dict) -> list[tuple[tuple, str]]:
    """Configurations whose placement puts two guests on one CPU where their backend cannot
    share it (backend.shared_cpu_refusal: Xen's null scheduler), each blamed on what to
    change: the instances dimension or key that adds the guests, else the placement
    dimension (same-core), else cpus. Checked on the planned runs, so every matrix value
    counts (the backend's too); a spec the model refuses is reported on its own."""
    try:
        runs = plan(Campaign.model_validate(raw), raw)
    except ValidationError:
        return []
    found: dict[tuple, str] = {}
    for run in {r.config_id: r for r in runs}.values():
        cls = backend_class(run.spec.backend.kind)
        why = cls.shared_cpu_refusal(run.spec.backend.options) if cls else None
        cpu, n = Counter(c for g in run.guests if not g.host for c in g.cpus).most_common(1)[0]
        if why and n > 1:
            found.setdefault(_blame(run, raw), f"{run.config_id}: {why}: {n} guests on CPU {cpu} (give each "
                                               f"guest its own CPU in cpus, or fewer instances)")
    return list(found.items())


def _blame(run, raw: dict) -> tuple:
    """Where a configuration's crowded CPU comes from in the spec."""
    dims = [d for d, v in run.config.items() if d.startswith("stressors.") and d.endswith(".instances") and v != 1]
    many = [i for i, s in enumerate(run.spec.stressors) if s.instances > 1]
    if dims:
        return ("matrix", dims[0])
    if many:
        return ("stressors", many[0], "instances")
    if run.placement == "same-core" and "placement" in (raw.get("matrix") or {}):
        return ("matrix", "placement")
    return ("cpus",)


def spec_checks() -> Checks:
    """The checks, with the catalogue of this source tree (built when missing or stale)."""
    known = catalogue.load()
    return Checks(configuration=(partial(workload_problems, catalogue=known, suites_of=suites_of),
                                 partial(image_problems, booted_by=booted_by), backend_problems, instrument_problems),
                  campaign=(partial(metric_problems, catalogue=known, suites_of=suites_of), bench_table_problems,
                            shared_cpu_problems))
