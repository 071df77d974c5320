"""TOML -> Campaign, with every problem reported at once, each with its field path and,
where it can be found in the file, its line.

Structural errors come from pydantic (an unknown key with a "did you mean"); cross-field
rules (timeline targets and times, matrix paths, placements vs CPUs and stressors,
baselines) are checked here on the raw data so they are reported even when other fields
are wrong. What only the backends and the guests know (backend options, benches and
their parameters, the host's CPUs) comes in as checks (xtalk.running.preflight makes them).
Every configuration is checked, one [matrix] value applied at a time: a problem only a
matrix value makes is reported on that dimension, with the value.
"""
from __future__ import annotations

import copy
import itertools
import math
import re
import tomllib
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from pydantic import BaseModel, ValidationError

from ..plugins import backend_class
from ..controls import one_line
from ..files import read_bounded
from ..errors import Problem, SpecError, UsageError, did_you_mean
from .assignment import BadAssignment, parse_assignment
from .limits import MAX_NESTING, size_problems, too_deep
from .locate import deep_line, field_at, path_text, problem_at
from .model import Campaign, RunSettings, resolve_backend
from .suggest import one_of, shown

SPEC_LIMIT = 1 << 20  # bytes; the largest example spec is a few KiB
DEFAULT_DURATION_S = RunSettings.model_fields["duration_s"].default

# Validates backend options: (kind, options) -> problems (path relative to `backend`).
BackendOptionCheck = Callable[[str, dict[str, Any]], list[tuple[str, str]]]
# Checks a raw spec: problems as (location, message).
RawCheck = Callable[[dict], list[tuple[tuple, str]]]
Located = list[tuple[tuple, str]]


@dataclass(frozen=True)
class Checks:
    """Checks beyond the model: `configuration` ones see each configuration (the spec,
    and the spec with one matrix value applied, without [matrix]), `campaign` ones the
    whole spec once (e.g. the metrics all of its measurers record)."""

    configuration: tuple[RawCheck, ...] = ()
    campaign: tuple[RawCheck, ...] = ()


def _models(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _models(arg)]


def _keys_at(loc: tuple) -> list[str]:
    """The keys the model allows in the table at loc (list indices skipped)."""
    model: type[BaseModel] = Campaign
    for part in loc:
        if isinstance(part, int):
            continue
        field = model.model_fields.get(part)
        inner = _models(field.annotation) if field else []
        if not inner:
            return []
        model = inner[0]
    return list(model.model_fields)


SUGGESTED_AT_MOST = 50  # unknown keys given a "did you mean": more are no typos (and each costs ~0.3 ms)


def _model_problems(err: ValidationError) -> Located:
    problems, unknown = [], 0
    for e in err.errors():
        loc = tuple(p for p in e["loc"] if not (isinstance(p, str) and p.startswith("function-")))
        # drop pydantic's internal union/type tags such as 'int' or 'str' at the end
        loc = tuple(p for p in loc if p not in ("int", "float", "str", "bool"))
        msg = e["msg"]
        if e["type"] == "extra_forbidden":
            unknown += 1
            msg = "unknown key" + (did_you_mean(loc[-1], _keys_at(loc[:-1])) if unknown <= SUGGESTED_AT_MOST else "")
        elif e["type"] == "missing":
            msg = "required key is missing"
        elif e["type"] == "string_pattern_mismatch":
            msg = "use letters, digits, '_', '.' or '-' (no spaces), starting with a letter or digit"
        elif e["type"] in ("literal_error", "enum"):  # a Literal field: every choice named, the closest suggested
            msg = one_of(e["input"], re.findall(r"'([^']*)'", e["ctx"]["expected"]))
        elif e["type"] == "finite_number":
            msg = "must be a finite number"
        elif e["type"] in ("model_type", "dict_type"):
            msg = f"should be a table, not {shown(e['input'])}"
        elif e["type"].endswith("_type"):  # strict: a string or a boolean is no number
            msg += f", not {shown(e['input'])}"
        problems.append((loc, msg.removeprefix("Value error, ")))
    return problems


def _listed(raw: dict, key: str) -> list:
    """raw[key] where it is a list, else none (the model says what is wrong with it)."""
    return raw[key] if isinstance(raw.get(key), list) else []


STRESSOR_DIM = "stressor"  # the matrix dimension naming the one stressor a configuration runs


def set_path(raw: dict, dim: str, value: Any) -> str | None:
    """Apply a matrix dimension (dotted path) to a raw spec dict in place.
    Returns a reason when the path cannot name a spec field. The dimension `stressor`
    (a stressor's name) keeps that one stressor and drops the others: one neighbour per
    configuration, the others' parameters apart (a channel study)."""
    parts = dim.split(".")
    if dim == STRESSOR_DIM:
        stressors = [s for s in _listed(raw, "stressors") if isinstance(s, dict)]
        names = [str(s.get("name")) for s in stressors]
        if value not in names:
            return f"no stressor named {value!r}{did_you_mean(str(value), names)}"
        raw["stressors"] = [s for s in stressors if s.get("name") == value]
        return None
    if parts[0] == "stressors":
        if len(parts) < 3:
            return "use stressors.<name>.<field>"
        stressors = [s for s in _listed(raw, "stressors") if isinstance(s, dict)]
        match = [s for s in stressors if s.get("name") == parts[1]]
        if not match:
            return f"no stressor named {parts[1]!r}{did_you_mean(parts[1], map(str, (s.get('name') for s in stressors)))}"
        node, rest = match[0], parts[2:]
    elif parts[0] in ("measurer", "backend", "run"):
        node, rest = raw.setdefault(parts[0], {}), parts[1:]
        if not isinstance(node, dict):
            return f"{parts[0]} is not a table"
    else:
        return "the path must start with measurer., stressors.<name>., backend. or run."
    if not rest:
        return "the path must name a field"
    for key in rest[:-1]:
        node = node.setdefault(key, {})
        if not isinstance(node, dict):
            return f"{key} is not a table"
    node[rest[-1]] = value
    return None


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _no_stressor(name: object, names: set) -> str:
    known = ", ".join(sorted(map(str, names))) or "none defined"
    return f"no stressor named {name!r}{did_you_mean(name, map(str, names))} (stressors: {known})"


def _paired_problems(raw: dict, names: set, timeline) -> Located:
    paired = raw.get("paired")
    if not isinstance(paired, dict):
        return []
    out = []
    if timeline:
        out.append((("paired",), "give either [paired] or [[timeline]] events, not both"))
    if not names:
        out.append((("paired",), "the paired design needs at least one stressor"))
    chosen = paired.get("stressors", [])
    for i, name in enumerate(chosen if isinstance(chosen, list) else []):
        if isinstance(name, str) and name not in names:
            out.append((("paired", "stressors", i), _no_stressor(name, names)))
    run = raw.get("run") if isinstance(raw.get("run"), dict) else {}
    cycle = [paired.get("off_s", 1.0), paired.get("on_s", 1.0)]
    duration = run.get("duration_s", DEFAULT_DURATION_S)
    if all(_number(v) for v in cycle + [duration]) and duration < sum(cycle) + cycle[0]:
        out.append((("paired",), f"a run of run.duration_s = {duration:g} s holds no off/on/off cycle of "
                                 f"{cycle[0]:g} + {cycle[1]:g} + {cycle[0]:g} s"))
    return out


def _backend_table_problems(backend: object, matrix: object) -> Located:
    """Per-backend tables ([backend.qemu]) must be tables, of a backend the campaign runs
    (backend.kind, or a value of the "backend.kind" matrix dimension)."""
    if not isinstance(backend, dict):
        return []
    kinds = matrix.get("backend.kind") if isinstance(matrix, dict) else None
    used = list(map(str, kinds)) if isinstance(kinds, list) else [str(backend.get("kind", "native"))]
    out: Located = []
    for name in backend:
        if backend_class(name) is None:
            continue
        if not isinstance(backend[name], dict):
            out.append((("backend", name), f"[backend.{name}] is a table of the {name} backend's options"))
        elif name not in used:
            out.append((("backend", name), f"options of the {name} backend, which this campaign does not run "
                                           f"(it runs {', '.join(used)})"))
    return out


def _cross_field_problems(raw: dict) -> Located:
    out: Located = []
    stressors = raw.get("stressors", [])
    names = {s.get("name") for s in stressors if isinstance(s, dict) and isinstance(s.get("name"), str)} \
        if isinstance(stressors, list) else set()
    timeline = raw.get("timeline", [])
    if isinstance(timeline, list):
        for i, ev in enumerate(timeline):
            if isinstance(ev, dict) and isinstance(ev.get("target"), str) and ev["target"] not in names:
                out.append((("timeline", i, "target"), _no_stressor(ev["target"], names)))
    out += _paired_problems(raw, names, timeline)
    matrix = raw.get("matrix", {})
    cpus = raw.get("cpus", [0, 1])
    if isinstance(matrix, dict):
        placements = matrix.get("placement", [])
        if isinstance(placements, list):
            if any(p in ("same-core", "other-core") for p in placements) and not names:
                out.append((("matrix", "placement"), "same-core/other-core need at least one stressor"))
            if "other-core" in placements and isinstance(cpus, list) and len(cpus) < 2:
                out.append((("matrix", "placement"), "other-core needs at least two entries in cpus"))
    out += _backend_table_problems(raw.get("backend"), matrix)
    gates = raw.get("gates", [])
    analysis = raw.get("analysis") if isinstance(raw.get("analysis"), dict) else {}
    bases = [(("gates", i, "baseline"), g.get("baseline", "placement=solo"))
             for i, g in enumerate(gates if isinstance(gates, list) else []) if isinstance(g, dict)]
    if "baseline" in analysis:
        bases.append((("analysis", "baseline"), analysis["baseline"]))
    for loc, base in bases if isinstance(matrix, dict) else []:
        if isinstance(base, str):
            dim, _, val = base.partition("=")
            values = matrix.get(dim, ["solo"] if dim == "placement" else [])
            if str(val) not in map(str, values if isinstance(values, list) else []):
                out.append((loc, f"{base!r} is not a configuration of the matrix"))
    return out


def _timing_problems(raw: dict) -> Located:
    """Timeline events and warm-up against the length of the run."""
    run = raw.get("run") if isinstance(raw.get("run"), dict) else {}
    duration = run.get("duration_s", DEFAULT_DURATION_S)
    if not _number(duration) or not math.isfinite(duration):
        return []
    out: Located = []
    timeline = raw.get("timeline")
    for i, ev in enumerate(timeline if isinstance(timeline, list) else []):
        at = ev.get("at_s") if isinstance(ev, dict) else None
        if _number(at) and at >= duration:
            out.append((("timeline", i, "at_s"), f"{at:g} s is not before the end of the run "
                                                 f"(run.duration_s = {duration:g} s): the event never happens"))
    warmup = run.get("warmup_s", 0)
    if _number(warmup) and warmup >= duration:
        out.append((("run", "warmup_s"), f"every sample of a run of run.duration_s = {duration:g} s "
                                         f"would be warm-up"))
    return out


def _configuration_problems(raw: dict, backend_check: BackendOptionCheck | None, checks: Checks) -> Located:
    """What is wrong with one configuration beyond the model."""
    out = _timing_problems(raw)
    backend = raw.get("backend", {})
    if backend_check and isinstance(backend, dict):
        kind, opts = resolve_backend(backend)
        own = backend.get(kind) if isinstance(backend.get(kind), dict) else {}
        for sub, msg in backend_check(kind, opts):
            key = tuple(sub.split(".")) if sub else ()
            out.append((("backend",) + ((kind,) if key and key[0] in own else ()) + key, msg))
    for check in checks.configuration:
        out += check(raw)
    return out


def _applied_problems(raw: dict, values: dict, backend_check: BackendOptionCheck | None,
                      checks: Checks) -> Located:
    """The problems of the configuration the spec makes with these matrix values applied
    (paths already checked by set_path)."""
    trial = copy.deepcopy(raw)
    for dim, value in values.items():
        set_path(trial, dim, value)
    trial.pop("matrix", None)
    try:
        Campaign.model_validate(trial)
        found = []
    except ValidationError as err:
        found = _model_problems(err)
    return found + _configuration_problems(trial, backend_check, checks)


def _matrix_problems(raw: dict, backend_check: BackendOptionCheck | None, checks: Checks,
                     known: set) -> Located:
    """Each matrix value applied to the spec alone, then each pair of values of two
    dimensions (a bench of one dimension on a backend of another): the first problem it
    makes where the spec without the matrix (known: their locations) and either value
    alone have none, reported on its dimension (a pair's on the later one, naming both)."""
    matrix = raw.get("matrix")
    out: Located = []
    alone: dict[tuple, set] = {}  # (dim, value as text) -> locations of the value's own problems
    dims = []
    for dim, values in matrix.items() if isinstance(matrix, dict) else ():
        if dim in ("placement", "start_order") or not isinstance(values, list):
            continue
        named = values if dim == STRESSOR_DIM else values[:1]  # a path is checked once, a stressor name each
        reason = next((r for v in named if (r := set_path(copy.deepcopy(raw), dim, v))), None)
        if reason:
            out.append((("matrix", dim), reason))
            continue
        dims.append((dim, values))
        for value in values:
            new = [p for p in _applied_problems(raw, {dim: value}, backend_check, checks) if p[0] not in known]
            alone[dim, str(value)] = {loc for loc, _ in new}
            if new:
                loc, msg = new[0]
                out.append((("matrix", dim), f"value {shown(value)}: {path_text(loc)}: {msg}"))
    for (d1, values1), (d2, values2) in itertools.combinations(dims, 2):
        for v1, v2 in itertools.product(values1, values2):
            if alone[d1, str(v1)] or alone[d2, str(v2)]:
                continue  # reported alone
            new = [p for p in _applied_problems(raw, {d1: v1, d2: v2}, backend_check, checks) if p[0] not in known]
            if new:
                loc, msg = new[0]
                out.append((("matrix", d2), f"value {shown(v2)} with {d1} = {shown(v1)}: {path_text(loc)}: {msg}"))
    return out


def apply_overrides(raw: dict, overrides: list[str]) -> list[Problem]:
    """Apply `path=value` overrides (`xtalk run --set`; the value as spec/assignment.py
    reads it). Returns the problems (bad form, unknown path)."""
    problems = []
    for item in overrides:
        try:
            path, value = parse_assignment(item)
        except BadAssignment as why:
            problems.append(Problem(f"--set {one_line(item)}", f"{why}: use PATH=VALUE, e.g. run.repetitions=1"))
            continue
        if "." not in path:
            if path not in Campaign.model_fields:
                problems.append(Problem(f"--set {path}", "not a top-level key of a campaign spec"))
            else:
                raw[path] = value
        elif reason := set_path(raw, path, value):
            problems.append(Problem(f"--set {path}", reason))
    return problems


def _resolve_images(raw: dict, base: Path) -> None:
    """A foreign guest's image and initrd, relative to the spec file's directory, also
    as [matrix] values (measurer.image, stressors.<name>.initrd, ...)."""
    def resolved(value: object) -> object:
        return str((base / Path(value).expanduser()).resolve()) if isinstance(value, str) and value else value

    stressors = raw.get("stressors") if isinstance(raw.get("stressors"), list) else []
    for table in [raw.get("measurer"), *stressors]:
        for key in ("image", "initrd"):
            if isinstance(table, dict) and key in table:
                table[key] = resolved(table[key])
    matrix = raw.get("matrix") if isinstance(raw.get("matrix"), dict) else {}
    for dim, values in matrix.items():
        if dim.rpartition(".")[2] in ("image", "initrd") and isinstance(values, list):
            matrix[dim] = [resolved(v) for v in values]


def parse_campaign(text: str, source: str, backend_check: BackendOptionCheck | None = None,
                   overrides: list[str] = (), checks: Checks = Checks(),
                   base: Path | None = None, values: dict[str, Any] | None = None) -> tuple[Campaign, dict]:
    """Parse and validate spec text (with `--set` overrides applied, then `values`:
    structured values at dotted paths, as a fleet's board kind sets them); returns the
    model and the raw dict (for the planner). Image paths are relative to `base` (the
    spec's directory; default the working directory)."""
    raw = parse_toml(text, source)
    problems: list[Problem] = apply_overrides(raw, list(overrides))
    problems += [Problem(path, reason) for path, value in (values or {}).items()
                 if (reason := set_path(raw, path, value))]
    _resolve_images(raw, base or Path.cwd())
    model = None
    found: Located = size_problems(raw)
    too_big = bool(found)  # then what expands the plan (each matrix value, the planned runs) is not checked
    try:
        model = Campaign.model_validate(raw)
    except ValidationError as err:
        found += _model_problems(err)
    found += _configuration_problems(raw, backend_check, checks)
    if not too_big:
        found += _matrix_problems(raw, backend_check, checks, {loc for loc, _ in found})
    found += _cross_field_problems(raw)
    for check in checks.campaign if not too_big else ():
        found += check(raw)
    problems += [problem_at(text, loc, msg) for loc, msg in found]
    overridden = {o.partition("=")[0].strip() for o in overrides}
    problems = [Problem(p.path, f"{p.message} (value from --set)", None) if p.path in overridden else
                Problem(p.path, f"{p.message} (value from the fleet file)", None)
                if any(p.path == v or p.path.startswith(f"{v}.") for v in values or {}) else p for p in problems]
    if problems:
        unique = list(dict.fromkeys(problems))
        raise SpecError(source, sorted(unique, key=lambda p: (p.line or 10**9, p.path)))
    assert model is not None
    return model, raw


def parse_toml(text: str, source: str) -> dict:
    """The TOML document of a spec or fleet file; a syntax error, or tables, arrays or a
    dotted key nested more than MAX_NESTING deep, is a SpecError naming the line."""
    too_nested = f"arrays, tables or a dotted key nested more than {MAX_NESTING} deep"
    if line := deep_line(text, MAX_NESTING):
        raise SpecError(source, [Problem(field_at(text, line), too_nested, line)])
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        m = re.search(r"line (\d+)", str(err))
        line = int(m.group(1)) if m else max(1, len(text.splitlines()))  # "at end of document"
        raise SpecError(source, [Problem("(toml syntax)", str(err), line)]) from None
    except RecursionError:  # nesting deep_line did not see (in a multi-line array)
        raise SpecError(source, [Problem("(toml syntax)", too_nested, 1)]) from None
    if deep := too_deep(raw):
        raise SpecError(source, [problem_at(text, deep, f"nested more than {MAX_NESTING} tables or arrays deep")])
    return raw


def read_spec(path: str | Path) -> str:
    """The text of a spec file; anything but a UTF-8 text file of at most SPEC_LIMIT bytes
    is refused with one line naming the file. Reads at most SPEC_LIMIT + 1 bytes (a
    device such as /dev/zero or /dev/urandom is refused after that, not read forever)."""
    data = read_bounded(path, SPEC_LIMIT, "a campaign spec (TOML text)", regular_only=True)
    if b"\0" in data:
        raise UsageError(f"{path}: a binary file (NUL bytes): not a campaign spec (TOML text)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise UsageError(f"{path}: not UTF-8 text (byte 0x{data[err.start]:02x} at offset {err.start})") from None


def load_campaign(path: str | Path, backend_check: BackendOptionCheck | None = None,
                  overrides: list[str] = (), checks: Checks = Checks()) -> tuple[Campaign, dict]:
    return parse_campaign(read_spec(path), str(path), backend_check, overrides, checks, Path(path).parent)
