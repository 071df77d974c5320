"""Spec -> ordered list of runs with stable ids.

A configuration is one point of the matrix (placement, start order and any dotted spec
path, the backend too: "backend.kind"). Configurations that mean the same thing collapse:
solo runs no stressor, so it ignores start order and every `stressors.` dimension (one
solo baseline for a sweep over the stressors' sizes and instances;
analysis.gates.baseline_of matches it to each); a configuration ignores the options of
another backend's table ("backend.qemu.machine" on native).
Runs are repetitions of configurations, interleaved by default so slow drift of the
host spreads over all configurations; warm-up runs come first and are marked.
Ids depend only on the spec, so `--resume` can match runs already stored.
A plan is bounded before it is built: a spec over the limits of xtalk.spec.limits
(windows, timeline events, configurations, runs) is refused.
"""
from __future__ import annotations

import copy
import itertools
import re
from dataclasses import dataclass, field

from .. import plugins
from ..errors import Problem, SpecError
from .limits import MAX_TIMELINE_EVENTS, MAX_WINDOWS, paired_switches, size_problems
from .load import STRESSOR_DIM, set_path
from .locate import path_text
from .model import Campaign, TimelineEvent

DEFAULTS = {"placement": None, "start_order": "measurer-first"}
BACKEND_DIM = "backend.kind"  # the backend as a dimension: native is the bare-machine baseline
BARE_DIMS = ("placement", "start_order", BACKEND_DIM)  # named by their value alone in a configuration's id


@dataclass(frozen=True)
class GuestPlan:
    name: str  # the measurer, a stressor, or a stressor's instance (copy-2)
    role: str  # "measurer" | "stressor"
    bench: str
    params: dict
    cpus: tuple[int, ...]  # the host CPU of each vCPU (a CPU may repeat: stacked vCPUs)
    starts_at_boot: bool = True  # False when the timeline starts it later
    host: bool = False  # a host process next to the guests (Stressor.host)
    output: str = "xt"  # the parser of its console (xtalk.parsers)
    parser: dict = field(default_factory=dict)  # the parser's options
    image: str | None = None  # a foreign image (absolute path), booted instead of xtalk's
    initrd: str | None = None
    append: str = ""
    stressor: str | None = None  # the spec stressor this guest is an instance of (timeline targets)

    @property
    def vcpus(self) -> int:
        return len(self.cpus)

    @property
    def foreign(self) -> bool:
        return self.image is not None


def _own(workload) -> dict:
    """GuestPlan fields a spec workload (Measurer, Stressor) gives besides its bench."""
    return {"output": workload.output, "parser": dict(workload.parser), "image": workload.image,
            "initrd": workload.initrd, "append": workload.append}


@dataclass(frozen=True)
class RunPlan:
    index: int
    run_id: str
    config_id: str
    config: dict
    repetition: int
    warmup: bool
    placement: str
    start_order: str
    spec: Campaign  # the spec with this configuration's values applied
    guests: tuple[GuestPlan, ...] = field(default_factory=tuple)
    timeline: tuple[TimelineEvent, ...] = field(default_factory=tuple)
    # the cache sizes its guests are given (spec/sizes.run_caches: the campaign sets them), and their source
    caches: tuple[tuple[str, int], ...] = ()
    caches_source: str = ""

    @property
    def backend(self) -> str:
        return self.spec.backend.kind

    @property
    def measurer(self) -> GuestPlan:
        return next(g for g in self.guests if g.role == "measurer")

    @property
    def stressors(self) -> tuple[GuestPlan, ...]:
        return tuple(g for g in self.guests if g.role == "stressor")


SLUG_OPERATORS = {"*": "x", "/": "div"}  # size expressions: llc*2 -> llcx2, llc/2 -> llcdiv2


def _slug(value: object) -> str:
    text = re.sub(r"[*/]", lambda m: SLUG_OPERATORS[m[0]], str(value))
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-") or "x"


def config_name(config: dict, dims: list[str]) -> str:
    """A configuration's id from the values of the dimensions that tell it apart."""
    return "_".join(
        _slug(config[d]) if d in BARE_DIMS else f"{_slug(d.split('.')[-1])}-{_slug(config[d])}"
        for d in dims
    ) or _slug(config["placement"])


def timeline_of(spec: Campaign) -> tuple[TimelineEvent, ...]:
    """The spec's timeline, or the paired design's off/on switching: each chosen stressor
    starts (held paused from boot) after off_s, is paused after on_s, resumed after the
    next off_s, ... until the run's duration."""
    if spec.paired is None:
        return tuple(sorted(spec.timeline, key=lambda e: e.at_s))
    p = spec.paired
    targets = p.stressors or [s.name for s in spec.stressors]
    switches = paired_switches(spec.run.duration_s, p.off_s, p.on_s)
    if switches + 1 > MAX_WINDOWS or switches * len(targets) > MAX_TIMELINE_EVENTS:  # the loader refuses these
        raise SpecError(spec.name, [Problem("paired", f"{switches + 1:g} windows of {len(targets)} stressors: "
                                                      f"over the limits (xtalk.spec.limits)")])
    events = []
    for k in range(int(switches)):  # at off, off + on, 2 off + on, ...
        cycles, on = divmod(k, 2)
        action = "start" if k == 0 else "pause" if on else "resume"
        t = p.off_s + cycles * (p.off_s + p.on_s) + on * p.on_s
        events += [TimelineEvent(at_s=round(t, 9), action=action, target=name) for name in targets]
    return tuple(events)


def _guests(spec: Campaign, placement: str) -> tuple[GuestPlan, ...]:
    measurer = GuestPlan(
        "measurer", "measurer", spec.measurer.bench, spec.measurer.bench_params,
        spec.measurer.vcpu_cpus(spec.cpus[0], spec.cpus),
        **_own(spec.measurer))
    if placement == "solo":
        return (measurer,)
    first_action = {}
    for ev in timeline_of(spec):
        first_action.setdefault(ev.target, ev.action)
    others = spec.cpus[1:] or spec.cpus[:1]
    guests, slot = [measurer], 0
    for stressor in spec.stressors:
        for name in stressor.guest_names():
            cpu = spec.cpus[0] if placement == "same-core" else others[slot % len(others)]
            slot += placement == "other-core"
            guests.append(
                GuestPlan(name, "stressor", stressor.bench, stressor.bench_params, stressor.vcpu_cpus(cpu, spec.cpus),
                          starts_at_boot=first_action.get(stressor.name) != "start", host=stressor.host,
                          stressor=stressor.name, **_own(stressor))
            )
    return tuple(guests)


def other_backends_option(dim: str, kind: str) -> bool:
    """A dimension over an option of another backend's table ("backend.qemu.machine" in a
    native configuration): not a dimension of this configuration."""
    parts = dim.split(".")
    return len(parts) > 2 and parts[0] == "backend" and parts[1] != kind and plugins.backend_class(parts[1]) is not None


def configurations(spec: Campaign, raw: dict) -> list[tuple[str, dict, Campaign]]:
    """(config_id, {dimension: value}, resolved spec) for each distinct configuration."""
    matrix = dict(spec.matrix)
    matrix.setdefault("placement", ["solo", "same-core", "other-core"] if spec.stressors else ["solo"])
    dims = list(matrix)
    varying = [d for d in dims if len(matrix[d]) > 1]
    out, seen, ids = [], set(), set()
    for values in itertools.product(*(matrix[d] for d in dims)):
        config = dict(zip(dims, values))
        config.setdefault("start_order", DEFAULTS["start_order"])
        if config["placement"] == "solo":
            config["start_order"] = DEFAULTS["start_order"]
            config = {d: v for d, v in config.items() if not d.startswith("stressors.") and d != STRESSOR_DIM}
        kind = config.get(BACKEND_DIM, spec.backend.kind)
        config = {d: v for d, v in config.items() if not other_backends_option(d, kind)}
        key = tuple(sorted((k, str(v)) for k, v in config.items()))
        if key in seen:
            continue
        seen.add(key)
        shown = [d for d in varying if d in config and not (config["placement"] == "solo" and d == "start_order")]
        config_id = base_id = config_name(config, shown)
        for n in itertools.count(2):  # values that slug alike ("a b", "a-b") are kept apart
            if config_id not in ids:
                break
            config_id = f"{base_id}-{n}"
        ids.add(config_id)
        trial = copy.deepcopy(raw)
        trial.pop("matrix", None)
        for dim, value in config.items():
            if dim not in DEFAULTS:
                set_path(trial, dim, value)
        out.append((config_id, config, Campaign.model_validate(trial)))
    return out


def plan(spec: Campaign, raw: dict) -> list[RunPlan]:
    """The campaign's runs; a SpecError where the spec would make more than the limits
    (xtalk.spec.limits; the loader refuses such a spec, with its lines, first)."""
    if too_big := size_problems(raw):
        raise SpecError(spec.name, [Problem(path_text(loc), message) for loc, message in too_big])
    configs = configurations(spec, raw)
    reps = spec.run.repetitions
    order: list[tuple[int, int, bool]] = [(c, w, True) for w in range(spec.run.warmup_runs) for c in range(len(configs))]
    if spec.run.order == "interleaved":
        order += [(c, r, False) for r in range(reps) for c in range(len(configs))]
    else:
        order += [(c, r, False) for c in range(len(configs)) for r in range(reps)]
    runs = []
    for index, (c, rep, warm) in enumerate(order):
        config_id, config, resolved = configs[c]
        placement = config["placement"]
        runs.append(RunPlan(
            index=index,
            run_id=f"{config_id}-{'w' if warm else 'r'}{rep + 1}",
            config_id=config_id,
            config=config,
            repetition=rep + 1,
            warmup=warm,
            placement=placement,
            start_order=config["start_order"],
            spec=resolved,
            guests=_guests(resolved, placement),
            timeline=() if placement == "solo" else timeline_of(resolved),
        ))
    return runs


def backend_kinds(runs: list[RunPlan]) -> list[str]:
    """The backends of a campaign's runs, in the order they first run."""
    return list(dict.fromkeys(r.backend for r in runs))
