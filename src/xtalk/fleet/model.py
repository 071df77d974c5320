"""The fleet file (TOML): where the labgrid coordinator is, which places (boards) to use,
and for each kind of board how xtalk reaches its hypervisor. Validated like a campaign
spec: every problem at once, each with its field path and its line.

Reach of a kind:
  worker    xtalk runs on the board over ssh (`xtalk worker`), with the spec's own backend
            (native, qemu) there, and sends the run directory back.
  others    a backend's own (Backend.reach, from xtalk.plugins): the board's
            hypervisor driven from here by that backend, with what its board_values sets
            in the spec; xen-dom0: the board's dom0 over ssh, driven by the xen backend
            (executor ssh). A kind of such a reach may give a table of that backend's
            options, named after its kind (`xen = {...}`): the models that take those
            tables are made from the registry when a fleet file is first read (fleet_model).
All take the ssh address, port and user from the place's NetworkService resource.
"""
from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, field_validator, model_validator

from ..plugins import reaches
from ..errors import SpecError, did_you_mean
from ..spec.load import parse_toml, read_spec
from ..spec.locate import problem_at

PLACE_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"
MODES = ("spread", "per-board")
WORKER = "worker"  # the reach of boards that run `xtalk worker` themselves


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)


class BoardKind(_Strict):
    """One kind of board: its places and how xtalk reaches them (fleet_model adds the
    tables of the reach backends' options)."""

    name: str = Field(pattern=PLACE_PATTERN, max_length=64, description="label of this kind, e.g. rpi4")
    places: list[str] = Field(default_factory=list, description="labgrid place names")
    tags: dict[str, str] = Field(default_factory=dict, description="every place with all of these tags")
    reach: str = Field(description="worker: xtalk runs on the board over ssh; or the reach a backend declares: "
                       "that backend drives the board's hypervisor from here (docs/fleet.md)")
    ssh_identity: str | None = Field(default=None, description="private key for the boards (default: ssh's own)")
    ssh_known_hosts: str | None = Field(default=None, description="known_hosts of the boards (default: ssh's own)")
    worker_command: str = Field(default="xtalk", description="reach=worker: how xtalk is started on the board")
    worker_dir: str | None = Field(default=None, description="reach=worker: directory the worker runs in")
    boot_timeout_s: float = Field(default=120.0, gt=0, le=3600,
                                  description="after a power-on, how long the board may take to answer ssh")

    @field_validator("reach")
    @classmethod
    def _known_reach(cls, reach: str) -> str:
        known = [WORKER, *reaches()]
        if reach not in known:
            raise ValueError(f"Input should be {', '.join(map(repr, known[:-1]))} or {known[-1]!r}")
        return reach

    @model_validator(mode="after")
    def _selects_places(self):
        if bool(self.places) == bool(self.tags):
            raise ValueError("give either places (names) or tags")
        return self

    def reach_backend(self) -> type | None:
        """The backend class whose reach this kind has; None for reach = worker."""
        return reaches().get(self.reach)

    def backend_options(self) -> dict[str, Any]:
        """This kind's table of options for its reach backend ({} when none is given)."""
        backend = self.reach_backend()
        return (getattr(self, backend.name, None) or {}) if backend else {}


class Fleet(_Strict):
    coordinator: str = Field(pattern=r"^[^\s:]+:\d{1,5}$", description="labgrid coordinator, HOST:PORT")
    mode: Literal[MODES] = Field(default="spread", description="spread: the campaign's runs over equivalent "  # type: ignore[valid-type]
                                 "boards; per-board: the whole campaign on each board, to compare them")
    reserve_timeout_s: float = Field(default=300.0, gt=0, le=86400,
                                     description="how long to wait for labgrid to allocate every place")
    max_run_mib: int = Field(default=16384, ge=1, le=1 << 30, description="the most a run sent back by a board "
                             "may hold (its tar stream, MiB): a bigger one is refused and the board set aside")
    kinds: list[BoardKind] = Field(min_length=1, description="the kinds of board, [[kinds]]")


def _options_table(backend: type) -> Any:
    return (dict[str, Any], Field(default_factory=dict, description=f"reach={backend.reach}: {backend.name} backend "
                                  "options (the spec's [backend] wins)"))


@cache
def fleet_model() -> tuple[type[Fleet], type[BoardKind]]:
    """Fleet and BoardKind with a table for each reach backend's options, named after its
    kind (`xen`); made from the registry on first use, so importing this loads no backend."""
    tables = {backend.name: _options_table(backend) for backend in reaches().values()}
    clash = sorted(set(tables) & set(BoardKind.model_fields))
    if clash:  # a backend author's mistake, found the first time a fleet file is read
        raise TypeError(f"backend kind {clash[0]!r} declares a fleet reach, but a fleet kind already has a key "
                        f"of that name: rename the backend")
    kind = create_model("BoardKind", __base__=BoardKind, __module__=__name__, **tables)
    fleet = create_model("Fleet", __base__=Fleet, __module__=__name__,
                         kinds=(list[kind], Fleet.model_fields["kinds"]))  # type: ignore[valid-type]
    return fleet, kind


def _keys_at(loc: tuple) -> list[str]:
    model, kind = fleet_model()
    for part in loc:
        if part == "kinds":
            model = kind
        elif not isinstance(part, int):
            return []
    return list(model.model_fields)


def _problems(err: ValidationError) -> list[tuple[tuple, str]]:
    out = []
    for e in err.errors():
        loc = tuple(p for p in e["loc"] if p not in ("int", "float", "str", "bool"))
        msg = e["msg"].removeprefix("Value error, ")
        if e["type"] == "extra_forbidden":
            msg = "unknown key" + did_you_mean(loc[-1], _keys_at(loc[:-1]))
        elif e["type"] == "missing":
            msg = "required key is missing"
        out.append((loc, msg))
    return out


def _cross_problems(raw: dict) -> list[tuple[tuple, str]]:
    out, seen = [], {}
    kinds = raw.get("kinds") if isinstance(raw.get("kinds"), list) else []
    for i, kind in enumerate(k for k in kinds if isinstance(k, dict)):
        places = kind.get("places") if isinstance(kind.get("places"), list) else []
        for j, place in enumerate(places):
            if not isinstance(place, str):
                continue  # the model says what is wrong with it
            if not re.match(PLACE_PATTERN, place):
                out.append((("kinds", i, "places", j), f"{place!r} is not a labgrid place name"))
            elif place in seen:
                out.append((("kinds", i, "places", j), f"place {place!r} is already in kinds[{seen[place]}]"))
            seen.setdefault(place, i)
        backends = reaches()
        if isinstance(kind.get("reach"), str) and kind["reach"] in backends:
            for key in ("worker_command", "worker_dir"):
                if key in kind:
                    out.append((("kinds", i, key), "only for reach = \"worker\""))
        for reach, backend in backends.items():
            if kind.get(backend.name) and kind.get("reach") != reach:
                out.append((("kinds", i, backend.name), f"only for reach = \"{reach}\""))
    return out


def parse_fleet(text: str, source: str) -> Fleet:
    raw = parse_toml(text, source)
    found, model = [], None
    try:
        model = fleet_model()[0].model_validate(raw)
    except ValidationError as err:
        found += _problems(err)
    found += _cross_problems(raw)
    if found:
        problems = list(dict.fromkeys(problem_at(text, loc, msg) for loc, msg in found))
        raise SpecError(source, sorted(problems, key=lambda p: (p.line or 10**9, p.path)))
    assert model is not None
    return model


def load_fleet(path: str | Path) -> Fleet:
    """The fleet file, its key and known_hosts paths relative to its directory."""
    fleet = parse_fleet(read_spec(path), str(path))
    base = Path(path).parent

    def resolved(value: str | None) -> str | None:
        return None if value is None else str((base / Path(value).expanduser()).resolve())
    kinds = [k.model_copy(update={"ssh_identity": resolved(k.ssh_identity),
                                  "ssh_known_hosts": resolved(k.ssh_known_hosts)}) for k in fleet.kinds]
    return fleet.model_copy(update={"kinds": kinds})
