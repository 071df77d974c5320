"""The search space of `xtalk search`: which stressors a trial may pick and the range
of each tunable parameter, as the catalogue declares them (`tune`, guests/lib/catalogue.c)
or as the user overrides them (`--tune bench.param=LOW..HIGH`, `=a|b|c`, or `=VALUE` to
fix one). Sizes are searched in bytes, log-uniform, the cache units of their ranges
resolved with the caches the trials resolve theirs with (measured by `xtalk host caches`,
else what the host reports: spec/run_caches.py); numbers
log-uniform where the range spans two decades or more, else uniform. In a probe guest
(every backend but native) a size's range is cut to what the guest can allocate below
4 GiB (backends/guest_memory.py PROBE_BUFFERS_MAX, over the bench's buffers).

Candidates: the benches named (`--stressor`), else every stressor that declares one of
the chosen channels (`--channel`), else every stressor that declares a channel; only
those the backend's guests run. The `steal` injector (a real-time thread, natively or
beside the VM) is a candidate only when named: it is a known-answer tool, not a neighbour.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

from ..plugins import backend_class
from ..backends.guest_memory import PROBE_BUFFERS_MAX
from ..errors import Problem, SpecError
from ..spec import catalogue
from ..spec.catalogue import Param

LINE = 64  # searched sizes are whole cache lines


@dataclass(frozen=True)
class Dim:
    """One parameter of one candidate: a range, choices, or a fixed value."""
    bench: str
    name: str
    kind: str                     # size | int | float | choice | fixed
    low: float = 0.0
    high: float = 0.0
    choices: tuple = ()
    value: object = None
    default: object = None        # the catalogue's default, resolved: where a channel's default stressor starts
    of: str = "choice"            # a choice's own kind: size, int, float (--tune B.P='64|4k'), or choice (words)

    def start(self, text: object, caches: dict[str, int]) -> object:
        """The value this dimension takes for a parameter given as `text` (an enqueued
        trial): in bytes or a number within the range, or one of the choices (a number's
        text as its number: a default line=4k is the choice 4096)."""
        if self.kind == "choice":
            value = text if self.of == "choice" else _number(str(text), self.of, caches, self.key)
            value = int(value) if self.of in ("size", "int") else value
            return value if value in self.choices else self.choices[0]
        value = _number(str(text), self.kind, caches, self.key)
        return min(max(value, self.low), self.high)

    @property
    def key(self) -> str:
        return f"{self.bench}.{self.name}"

    def suggest(self, trial):
        if self.kind == "fixed":
            return self.value
        if self.kind == "choice":
            return trial.suggest_categorical(self.key, list(self.choices))
        if self.low == self.high:
            return int(self.low) if self.kind in ("size", "int") else self.low
        log = self.low > 0 and self.high / self.low >= 100
        if self.kind == "size":
            got = trial.suggest_float(self.key, self.low, self.high, log=True)
            return max(LINE, int(round(got / LINE)) * LINE)
        if self.kind == "int":
            return trial.suggest_int(self.key, int(self.low), int(self.high), log=log)
        return float(f"{trial.suggest_float(self.key, self.low, self.high, log=log):.4g}")  # what a spec would say


@dataclass(frozen=True)
class Candidate:
    bench: str
    host: bool
    channels: tuple[str, ...]
    dims: tuple[Dim, ...] = field(default_factory=tuple)


def _number(text: str, kind: str, caches: dict[str, int], where: str) -> float:
    try:
        value = catalogue.size_bytes(text, caches) if kind == "size" else float(text)
    except ValueError:
        value = None
    if value is None or not math.isfinite(value):
        raise SpecError("search", [Problem(where, f"{text!r} is not a {'size' if kind == 'size' else 'number'}"
                                                  + (" (or its cache level is unknown here)" if kind == "size" else ""))])
    return value


def _kind(param: Param) -> str:
    return {"size": "size", "u64": "int", "double": "float", "word": "choice"}.get(param.type, "fixed")


def dim_of(bench: str, param: Param, text: str, caches: dict[str, int], where: str) -> Dim:
    """A Dim from a range text: "[low,high]" (the catalogue's), "low..high", "a|b", or one value."""
    kind = _kind(param)
    if "|" in text:  # each choice of the parameter's own type: numbers search as numbers
        return Dim(bench, param.name, "choice", choices=tuple(_value(c.strip(), kind, param, caches, where)
                                                              for c in text.split("|")), default=param.default,
                   of=kind if kind in ("size", "int", "float") else "choice")
    bounds = text.strip("[]()").split(",") if text.startswith("[") else text.split("..")
    if len(bounds) == 2 and kind in ("size", "int", "float"):
        low, high = (_number(b.strip(), kind, caches, where) for b in bounds)
        if low > high:
            raise SpecError("search", [Problem(where, f"{text!r}: the low end is above the high end")])
        default = _number(param.default, kind, caches, where) if param.default is not None else low
        return Dim(bench, param.name, kind, low, high, default=min(max(default, low), high))
    return Dim(bench, param.name, "fixed", value=_value(text, kind, param, caches, where))


def _value(text: str, kind: str, param: Param, caches: dict[str, int], where: str) -> object:
    """One value of a parameter from its text, in the parameter's type, checked."""
    value = text if kind in ("choice", "fixed") else _number(text, kind, caches, where)
    if kind == "int" or (kind == "size" and isinstance(value, float)):
        value = int(value)
    problem = param.problem(value)
    if problem:
        raise SpecError("search", [Problem(where, f"{param.name}: {problem}")])
    return value


def fitted(d: Dim, limit: int | None) -> Dim:
    """A size range cut to what a probe guest can allocate (guest_memory.PROBE_BUFFERS_MAX)."""
    if d.kind != "size" or limit is None or d.high <= limit:
        return d
    return dataclasses.replace(d, low=min(d.low, limit), high=limit, default=min(d.default, limit))


def parse_tunes(tunes: list[str]) -> dict[tuple[str, str], str]:
    out = {}
    for text in tunes:
        key, sep, value = text.partition("=")
        bench, dot, name = key.partition(".")
        if not sep or not dot or not value:
            raise SpecError("search", [Problem("--tune", f"{text!r}: expected BENCH.PARAM=LOW..HIGH, =a|b or =VALUE")])
        out[bench, name] = value
    return out


def candidates(kind: str, options: dict, caches: dict[str, int], stressors: list[str], channels: list[str],
               tunes: list[str]) -> list[Candidate]:
    cat = catalogue.load()
    cls = backend_class(kind)
    guest_suites = cls.suites(options) or ()
    host_suites = cls.host_suites(options) if cls.measures_local_cpus else ()
    overrides = parse_tunes(tunes)
    images = {s for suites in catalogue.IMAGE_SUITES.values() for s in suites}  # not the steal injector's
    names = stressors or sorted({b.name for s in guest_suites if s in cat.suites and s in images
                                 for b in cat.suites[s].benches.values()
                                 if b.channels and (not channels or set(channels) & set(b.channels))})
    out = []
    for name in names:
        bench, host = cat.bench(name, guest_suites), False
        if bench is None and name in stressors:
            bench, host = cat.bench(name, host_suites), True
        if bench is None or bench.role != "stressor":
            raise SpecError("search", [Problem("--stressor", f"{name!r} is no stressor the {kind} backend runs")])
        dims = []
        for pname, param in bench.tune.items():
            text = overrides.pop((name, pname), param.range)
            dims.append(dim_of(name, bench.params.get(pname, param), text, caches, f"--tune {name}.{pname}"))
        for (b, pname), text in list(overrides.items()):
            if b == name and pname in bench.params:
                dims.append(dim_of(name, bench.params[pname], text, caches, f"--tune {name}.{pname}"))
                del overrides[b, pname]
        limit = None if cls.no_images or host else PROBE_BUFFERS_MAX // bench.buffers
        out.append(Candidate(name, host, bench.channels, tuple(fitted(d, limit) for d in dims)))
    if overrides:
        (b, p), _ = next(iter(overrides.items()))
        raise SpecError("search", [Problem("--tune", f"{b}.{p}: no such parameter of a candidate stressor "
                                                     f"({', '.join(c.bench for c in out) or 'none'})")])
    if not out:
        raise SpecError("search", [Problem("--channel", f"no stressor the {kind} backend runs loads "
                                                        f"{', '.join(channels)}")])
    return out


def suggest(trial, cands: list[Candidate], max_instances: int) -> dict:
    """A trial's neighbour: {bench, host, params, instances}."""
    by_name = {c.bench: c for c in cands}
    bench = trial.suggest_categorical("bench", list(by_name)) if len(by_name) > 1 else cands[0].bench
    cand = by_name[bench]
    params = {d.name: d.suggest(trial) for d in cand.dims}
    instances = trial.suggest_int("instances", 1, max_instances) if max_instances > 1 else 1
    return {"bench": bench, "host": cand.host, "params": params, "instances": instances}
