"""The workloads of a campaign spec against the bench catalogue (catalogue.py): the
measurer's and every stressor's bench must be one that runs where the spec puts it
(the backend's guests run the suites it names for its image; a `host = true` stressor
runs natively), every parameter one its bench declares or a common key the spec may
set, every value of the declared type and range; deadlines and gates must name a metric
one of the campaign's measurers records. Problems come as (location, message) on the
raw spec, so they are found even where the model refused other fields.
"""
from __future__ import annotations

from typing import Callable

from .catalogue import Bench, Catalogue
from .suggest import did_you_mean

# (backend kind, its options) -> the catalogue suites its guests run; None: unknown backend
SuitesOf = Callable[[str, dict], "tuple[str, ...] | None"]

WHERE = {"probe": 'the probe guests (backend image = "probe") and the native backend',
         "posix": 'the Linux-RT guests (backend image = "linux-rt") and the native backend',
         "steal": "the native backend, or as a stressor with host = true"}
# Common keys xtalk and the backends set on every workload (docs/protocol.md section 1)
SET_BY_XTALK = {"bench", "run", "role", "ring", "ring_gpa", "ring_bytes", "platform"}


def backend_of(raw: dict) -> tuple[str, dict]:
    backend = raw.get("backend") if isinstance(raw.get("backend"), dict) else {}
    return str(backend.get("kind", "native")), {k: v for k, v in backend.items() if k != "kind"}


def _not_here(name: str, suites: tuple[str, ...], catalogue: Catalogue) -> str:
    elsewhere = catalogue.suites_with(name)
    if elsewhere:
        return f"bench {name!r} does not run here: it runs on {' and on '.join(WHERE[s] for s in elsewhere)}"
    known = [b for s in suites if s in catalogue.suites for b in catalogue.suites[s].benches]
    hint = did_you_mean(name, known) or f" (benches here: {', '.join(known)})"
    return f"unknown bench {name!r}{hint}"


def _param_problem(bench: Bench, catalogue: Catalogue, key: str, value: object) -> str | None:
    common = catalogue.suites[bench.suite].common
    if key in SET_BY_XTALK and key in common:
        return f"{key} is set by xtalk, not by the spec"
    param = bench.params.get(key) or common.get(key)
    if param is None:
        own = ", ".join(bench.params) or "none"
        hint = did_you_mean(key, list(bench.params) + [k for k in common if k not in SET_BY_XTALK])
        return f"{bench.name} has no parameter {key!r}{hint} (its own: {own})"
    return param.problem(value)


def _workload(loc: tuple, table: dict, suites: tuple[str, ...], catalogue: Catalogue,
              measurer: bool) -> list[tuple[tuple, str]]:
    name = table.get("bench")
    if not isinstance(name, str):
        return []  # the model says what is wrong with it
    bench = catalogue.bench(name, suites)
    if bench is None:
        return [(loc + ("bench",), _not_here(name, suites, catalogue))]
    out = []
    if measurer and not bench.metrics:
        out.append((loc + ("bench",), f"{name} records no samples: it cannot be the measurer"))
    params = table.get("params")
    for key, value in params.items() if isinstance(params, dict) else ():
        why = _param_problem(bench, catalogue, str(key), value)
        if why:
            out.append((loc + ("params", key), why))
    return out


def workload_problems(raw: dict, catalogue: Catalogue, suites_of: SuitesOf) -> list[tuple[tuple, str]]:
    """The benches and parameters of one configuration (a matrix value applied)."""
    guest_suites = suites_of(*backend_of(raw))
    if guest_suites is None:
        return []  # an unknown backend or image: reported on backend
    out = []
    if isinstance(raw.get("measurer"), dict):
        out += _workload(("measurer",), raw["measurer"], guest_suites, catalogue, measurer=True)
    stressors = raw.get("stressors") if isinstance(raw.get("stressors"), list) else []
    for i, stressor in enumerate(stressors):
        if isinstance(stressor, dict):
            suites = suites_of("native", {}) if stressor.get("host") is True else guest_suites
            out += _workload(("stressors", i), stressor, suites or (), catalogue, measurer=False)
    return out


def metric_problems(raw: dict, catalogue: Catalogue, suites_of: SuitesOf) -> list[tuple[tuple, str]]:
    """Deadlines and gates on metrics none of the campaign's measurers (its measurer.bench
    and the matrix's values of it) records."""
    suites = suites_of(*backend_of(raw))
    matrix = raw.get("matrix") if isinstance(raw.get("matrix"), dict) else {}
    measurer = raw.get("measurer") if isinstance(raw.get("measurer"), dict) else {}
    varied = matrix.get("measurer.bench")
    names = [measurer.get("bench")] + (varied if isinstance(varied, list) else [])
    benches = [catalogue.bench(n, suites) if isinstance(n, str) and suites is not None else None for n in names]
    if None in benches:
        return []  # an unknown measurer is reported on its own
    recorded = {b.name: b.metrics for b in benches}
    listing = "; ".join(f"{b}: {', '.join(m.name for m in ms)}" for b, ms in recorded.items())
    out = []
    for section in ("deadlines", "gates"):
        items = raw.get(section) if isinstance(raw.get(section), list) else []
        for i, item in enumerate(items):
            metric = item.get("metric") if isinstance(item, dict) else None
            if isinstance(metric, str) and not any(m.matches(metric) for ms in recorded.values() for m in ms):
                hint = did_you_mean(metric, [m.name for ms in recorded.values() for m in ms])
                out.append(((section, i, "metric"), f"no measurer of this campaign records {metric!r}{hint} "
                                                    f"({listing})"))
    return out
