"""Everything xtalk can check in a campaign spec before anything starts, beyond the
spec's own model and rules (xtalk.spec.load): benches, parameters and the metrics of
deadlines and gates against the catalogue the guest programs print
(xtalk.spec.workloads), and what the backend refuses on this host (Backend.check_spec:
CPUs the host lacks). Every command that loads a spec (spec check, run, run --dry-run,
calibrate) loads it with these checks.
"""
from __future__ import annotations

from functools import partial

from .backends.base import backend_class
from .spec import catalogue
from .spec.load import Checks
from .spec.workloads import backend_of, bench_table_problems, metric_problems, workload_problems


def suites_of(kind: str, options: dict, host: bool = False) -> tuple[str, ...] | None:
    """The suites the backend's guests run, or (host) its host stressors."""
    cls = backend_class(kind)
    return (cls.host_suites(options) if host else cls.suites(options)) if cls else None


def backend_problems(raw: dict) -> list[tuple[tuple, str]]:
    cls = backend_class(backend_of(raw)[0])
    return cls.check_spec(raw) if cls else []


def spec_checks() -> Checks:
    """The checks, with the catalogue of this source tree (built when missing or stale)."""
    known = catalogue.load()
    return Checks(configuration=(partial(workload_problems, catalogue=known, suites_of=suites_of), backend_problems),
                  campaign=(partial(metric_problems, catalogue=known, suites_of=suites_of), bench_table_problems))
