"""The workloads of a campaign spec against the bench catalogue (catalogue.py): the
measurer's and every stressor's bench must be one that runs where the spec puts it
(the backend's guests run the suites it names for its image; a `host = true` stressor
those of the backend's host stressors; a bench that runs elsewhere is told where, from
what the registry's backends declare), every parameter one its bench declares or a
common key the spec may set, every value of the declared type and range; deadlines and
gates must name a metric one of the campaign's measurers records. A guest with an output parser other than `xt`
(an image of the user's) is held against its parser instead: a known parser, valid
parser options, a bench the parser declares, and deadlines and gates on metrics it can
report. Problems come as (location, message) on the raw spec, so they are found even
where the model refused other fields.
"""
from __future__ import annotations

from typing import Callable

from .. import parsers
from ..plugins import PARSERS, BACKENDS
from .catalogue import IMAGE_SUITES, Bench, Catalogue, Metric
from .model import params_for, resolve_backend
from ..errors import did_you_mean

# (backend kind, its options, host) -> the catalogue suites its guests (host: its host
# stressors) run; None: unknown backend
SuitesOf = Callable[..., "tuple[str, ...] | None"]

# Common keys xtalk and the backends set on every workload (docs/protocol.md section 1)
SET_BY_XTALK = {"bench", "run", "role", "ring", "ring_gpa", "ring_bytes", "platform"}


def backend_of(raw: dict) -> tuple[str, dict]:
    return resolve_backend(raw.get("backend") if isinstance(raw.get("backend"), dict) else {})


def _listing(words: list[str], last: str) -> str:
    """'a', 'a or b', 'a, b, or c' (last = 'or')."""
    if len(words) == 1:
        return words[0]
    return f"{', '.join(words[:-1])}{',' if len(words) > 2 else ''} {last} {words[-1]}"


def _where(suites: list[str]) -> list[str]:
    """Where a bench of these catalogue suites runs, as the backends declare it: on the
    backends that boot no guest image (their host programs), on the guests of each image
    option, and as a host = true stressor next to a backend's guests."""
    def runs(found: tuple[str, ...] | None) -> bool:
        return any(s in (found or ()) for s in suites)
    backends = BACKENDS.by_name()
    hosted = [kind for kind, cls in backends.items() if cls.no_images and runs(cls.suites({}))]
    out = [f"on the {_listing(hosted, 'and')} backend{'s' if len(hosted) > 1 else ''}"] if hosted else []
    guests = {kind: cls for kind, cls in backends.items() if not cls.no_images}
    for image in IMAGE_SUITES:
        booting = [kind for kind, cls in guests.items() if runs(cls.suites({"image": image}))]
        if booting:
            out.append(f'on {_listing(booting, "and")} guests (backend image = "{image}")')
    beside = [kind for kind, cls in guests.items() if any(runs(cls.host_suites({"image": i})) for i in IMAGE_SUITES)]
    if beside:
        out.append(f"as a stressor with host = true next to {_listing(beside, 'or')} guests")
    return out


def _not_here(name: str, suites: tuple[str, ...], catalogue: Catalogue) -> str:
    where = _where(catalogue.suites_with(name))
    if where:
        return f"bench {name!r} does not run here: it runs {_listing(where, 'and')}"
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


def _parser_of(table: dict) -> type[parsers.OutputParser] | None:
    """The parser of a workload that names a known one other than xt; None otherwise."""
    output = table.get("output", "xt")
    return parsers.registry().get(output) if isinstance(output, str) and output != "xt" else None


def _foreign(loc: tuple, table: dict) -> list[tuple[tuple, str]]:
    """A workload whose console another parser reads: the parser, its options, its bench."""
    output = table.get("output")
    if not isinstance(output, str):
        return []
    known = parsers.registry()
    if output not in known:
        return [(loc + ("output",), PARSERS.unknown(output))]
    options = table.get("parser") if isinstance(table.get("parser"), dict) else {}
    out = [(loc + ("parser",) + sub, msg) for sub, msg in parsers.option_problems(output, options)]
    benches, bench = known[output].benches, table.get("bench")
    if benches is not None and isinstance(bench, str) and bench not in benches:
        hint = did_you_mean(bench, benches) or f" (its benches: {', '.join(benches)})"
        out.append((loc + ("bench",), f"output {output!r} reports no bench {bench!r}{hint}"))
    if table.get("image") is None:
        out.append((loc + ("output",), f"output {output!r} reads a guest image of your own: give `image`"))
    return out


def _workload(loc: tuple, table: dict, suites: tuple[str, ...], catalogue: Catalogue,
              measurer: bool) -> list[tuple[tuple, str]]:
    if table.get("output", "xt") != "xt":
        return _foreign(loc, table)
    if table.get("image") is not None:
        return []  # an image of the user's that speaks XT: its benches are its own
    name = table.get("bench")
    if not isinstance(name, str):
        return []  # the model says what is wrong with it
    bench = catalogue.bench(name, suites)
    if bench is None:
        return [(loc + ("bench",), _not_here(name, suites, catalogue))]
    out = []
    if measurer and not bench.metrics:
        out.append((loc + ("bench",), f"{name} records no samples: it cannot be the measurer"))
    vcpus = table.get("vcpus", 1)
    if isinstance(vcpus, int) and vcpus > 1 and bench.suite == "probe" and not bench.smp:
        smp = sorted(b.name for s in catalogue.suites.values() for b in s.benches.values() if b.smp)
        out.append((loc + ("vcpus",), f"bench {name} runs on one vCPU: {vcpus} vCPUs need a bench that runs on "
                                      f"each ({', '.join(smp)})"))
    params = table.get("params") if isinstance(table.get("params"), dict) else {}
    own = params.get(name) if isinstance(params.get(name), dict) else {}
    for key, value in params_for(params, name).items():
        why = _param_problem(bench, catalogue, str(key), value)
        if why:
            out.append((loc + ("params",) + ((name,) if key in own else ()) + (key,), why))
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
            suites = suites_of(*backend_of(raw), host=True) if stressor.get("host") is True else guest_suites
            out += _workload(("stressors", i), stressor, suites or (), catalogue, measurer=False)
    return out


def bench_table_problems(raw: dict) -> list[tuple[tuple, str]]:
    """A table in a workload's params ([measurer.params.timer_latency]) must name a bench
    the workload runs: its bench or a value of its bench's matrix dimension."""
    matrix = raw.get("matrix") if isinstance(raw.get("matrix"), dict) else {}
    stressors = raw.get("stressors") if isinstance(raw.get("stressors"), list) else []
    workloads = [(("measurer",), "measurer", raw.get("measurer"))] + [
        (("stressors", i), f"stressors.{s.get('name')}", s) for i, s in enumerate(stressors) if isinstance(s, dict)]
    out = []
    for loc, path, table in workloads:
        if not isinstance(table, dict):
            continue  # the model says what is wrong with it
        params = table.get("params")
        varied = matrix.get(f"{path}.bench")
        runs = [str(table.get("bench"))] + (list(map(str, varied)) if isinstance(varied, list) else [])
        for key, value in params.items() if isinstance(params, dict) else ():
            if isinstance(value, dict) and key not in runs:
                out.append((loc + ("params", key), f"parameters of bench {key!r}, which {path} does not run "
                                                   f"(it runs {', '.join(dict.fromkeys(runs))})"
                            + did_you_mean(key, runs)))
    return out


def metric_problems(raw: dict, catalogue: Catalogue, suites_of: SuitesOf) -> list[tuple[tuple, str]]:
    """Deadlines and gates on metrics none of the campaign's measurers (its measurer.bench
    and the matrix's values of it) records."""
    suites = suites_of(*backend_of(raw))
    matrix = raw.get("matrix") if isinstance(raw.get("matrix"), dict) else {}
    measurer = raw.get("measurer") if isinstance(raw.get("measurer"), dict) else {}
    if measurer.get("image") is not None:
        return _foreign_metric_problems(raw, measurer)
    varied = matrix.get("measurer.bench")
    names = [measurer.get("bench")] + (varied if isinstance(varied, list) else [])
    benches = [catalogue.bench(n, suites) if isinstance(n, str) and suites is not None else None for n in names]
    if None in benches:
        return []  # an unknown measurer is reported on its own
    recorded = {b.name: b.metrics for b in benches}
    listing = "; ".join(f"{b}: {', '.join(m.name for m in ms)}" for b, ms in recorded.items())
    names = [m.name for ms in recorded.values() for m in ms]
    out = [(loc, f"no measurer of this campaign records {metric!r}{did_you_mean(metric, names)} ({listing})")
           for loc, metric in _metrics_named(raw)
           if not any(m.matches(metric) for ms in recorded.values() for m in ms)]
    return out + _time_limits_on_values(raw, [m for ms in recorded.values() for m in ms])


TIME_LIMITS = ("ns", "cycles", "max_ns", "max_cycles")  # a deadline's or a gate's limits that are times


def _time_limits_on_values(raw: dict, recorded: list[Metric]) -> list[tuple[tuple, str]]:
    """A time limit (ns, cycles) on a metric recorded in another unit (a count, a rate):
    it would be read as a time."""
    out = []
    for (section, i, _), metric in _metrics_named(raw):
        units = {m.unit for m in recorded if m.matches(metric)}
        if not units or units & {"ns", "cycles"}:
            continue
        out += [((section, i, key), f"{metric!r} is recorded in {', '.join(sorted(units))}, not a time: a limit in "
                                    f"{key.removeprefix('max_')} does not apply to it")
                for key in TIME_LIMITS if key in raw[section][i]]
    return out


def _metrics_named(raw: dict) -> list[tuple[tuple, str]]:
    """(location, metric) of every deadline and gate."""
    out = []
    for section in ("deadlines", "gates"):
        items = raw.get(section) if isinstance(raw.get(section), list) else []
        out += [((section, i, "metric"), item["metric"]) for i, item in enumerate(items)
                if isinstance(item, dict) and isinstance(item.get("metric"), str)]
    return out


def _foreign_metric_problems(raw: dict, measurer: dict) -> list[tuple[tuple, str]]:
    """Deadlines and gates against the metrics a foreign measurer's parser declares."""
    parser = _parser_of(measurer)
    options = measurer.get("parser") if isinstance(measurer.get("parser"), dict) else {}
    if parser is None or parsers.option_problems(parser.name, options):
        return []  # xt from an image of the user's (metrics unknown), or reported on the parser
    declared = parser.declared_metrics(options)
    if declared is None:
        return []
    return [(loc, f"output {parser.name!r} reports no metric {metric!r}{did_you_mean(metric, declared)}")
            for loc, metric in _metrics_named(raw)
            if not any(Metric(name, "", "").matches(metric) for name in declared)]
