"""The bench catalogue: build/catalogue.json, which `make catalogue` (part of `make
native`) writes from the guest programs themselves (`xtalk-bench catalogue`, ...), so
the benches, their parameters and metrics are declared once, in C (docs/benchmarks.md,
"The catalogue"). One suite per program: probe (the probe guests' benches, also run
natively), posix (the Linux-RT image's suite, also native), steal (native only).

Param.problem checks a spec value the way the guest will check its text
(guests/lib/cmdline.c): type, then range; TOML types are strict (a string is no
number, a boolean no integer). A size that refers to a cache level (llc*1.5) is
checked for form only: its bytes are known on the machine that runs it. A stressor
also declares the interference channels it loads and the search ranges of its
parameters (`tune`, docs/channels.md).
"""
from __future__ import annotations

import functools
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..images import artifacts
from ..errors import InfrastructureError
from .suggest import shown

PATH = "build/catalogue.json"
# xtalk's guest images (the backend option `image`) and the suites their guests run: the one
# list the backends (Backend.suites), the spec's messages (workloads.py) and sizes.py go by.
IMAGE_SUITES = {"probe": ("probe",), "linux-rt": ("posix",)}
_NUM = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
_SIZE = re.compile(rf"(?:(?P<cache>llc|l1|l2|l3|shared)|(?P<num>{_NUM})(?P<unit>[kKmMgG]?)[bB]?)"
                   rf"(?:(?P<op>[*/])(?P<factor>{_NUM}))?")
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
MAX_SIZE = 1 << 48  # the largest size a guest takes (xt_param_size)
NOUNS = {"u64": "an unsigned integer", "double": "a number", "size": "a size (bytes, or text such as "
         "\"4m\" or \"llc*1.5\")", "bool": "true, false, 0 or 1", "word": "one of", "text": "text"}


def size_bytes(text: str, caches: dict[str, int] | None = None) -> float | None:
    """The bytes of a literal size ("4096", "1171k", "1m*2"), or of a cache-relative one
    ("llc*1.5") given the bytes of each cache level (`caches`: llc, l1, l2, l3, shared;
    None when it is not known); ValueError when it is no size at all."""
    m = _SIZE.fullmatch(text)
    if not m or (m["factor"] is not None and float(m["factor"]) <= 0):
        raise ValueError(text)
    if m["cache"] and not (caches or {}).get(m["cache"]):
        return None
    value = float(caches[m["cache"]]) if m["cache"] else float(m["num"]) * _UNITS[m["unit"].lower()]
    if value < 0:
        raise ValueError(text)
    factor = float(m["factor"]) if m["factor"] else 1.0
    return value * factor if m["op"] != "/" else value / factor


def cache_unit(text: str) -> str | None:
    """The cache level a size expression names ("shared/2": shared), None for bytes or no size."""
    m = _SIZE.fullmatch(str(text))
    return m["cache"] if m else None


def in_range(value: float, interval: str, size: bool) -> bool:
    """Whether value lies in an interval such as "[1,100000]", "(0,1e7]", "[1,)"."""
    low, high = interval[1:-1].split(",")
    end = size_bytes if size else float
    if low and (value < end(low) if interval[0] == "[" else value <= end(low)):
        return False
    return not high or (value <= end(high) if interval[-1] == "]" else value < end(high))


@dataclass(frozen=True)
class Param:
    name: str
    type: str  # u64 double size bool word text (guests/lib/xt.h, enum xt_type)
    range: str | None
    default: str | None

    def expected(self) -> str:
        if self.type == "word":
            return f"one of {', '.join(self.range.split('|'))}"
        return NOUNS[self.type] + (f" in {self.range}" if self.range else "")

    def problem(self, value: object) -> str | None:
        """Why the guest would refuse value for this parameter; None when it takes it."""
        amount = self._amount(value)
        if amount is False or (isinstance(amount, float) and self.range
                               and not in_range(amount, self.range, self.type == "size")):
            return f"expected {self.expected()}, not {shown(value)}"
        return None

    def _amount(self, value: object) -> float | None | bool:
        """The number to check against the range; None: nothing to check; False: refused."""
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if self.type == "u64":
            return float(value) if number and isinstance(value, int) and 0 <= value < 1 << 64 else False
        if self.type == "double":
            return float(value) if number and math.isfinite(value) else False
        if self.type == "size":
            return self._size(value)
        if self.type == "bool":
            return None if isinstance(value, int) and value in (0, 1) else False
        if self.type == "word":
            whole = isinstance(value, int) and not isinstance(value, bool)  # a word that is a number: 0 as "0"
            return None if (isinstance(value, str) or whole) and str(value) in self.range.split("|") else False
        return None if not isinstance(value, bool) and not any(c.isspace() for c in str(value)) else False

    def _size(self, value: object) -> float | None | bool:
        if isinstance(value, int) and not isinstance(value, bool):
            amount = float(value)
        elif isinstance(value, str):
            try:
                amount = size_bytes(value)
            except ValueError:
                return False
            if amount is None:
                return None
        else:
            return False
        return amount if 1 <= amount <= MAX_SIZE else False


@dataclass(frozen=True)
class Metric:
    name: str  # <N> stands for a thread number (cyclictest_t<N>)
    unit: str
    kind: str

    def matches(self, name: str) -> bool:
        """name is this metric, or one vCPU's copy of it (<name>_vcpu<N>: vcpus = N)."""
        return re.fullmatch(re.escape(self.name).replace("<N>", r"\d+") + r"(?:_vcpu\d+)?", name) is not None


@dataclass(frozen=True)
class Bench:
    name: str
    suite: str
    role: str
    kpi: str | None
    params: dict[str, Param]
    metrics: tuple[Metric, ...]
    channels: tuple[str, ...] = ()         # a stressor's interference channels (interference/names.py)
    tune: dict[str, Param] = field(default_factory=dict)  # search ranges of its parameters (xtalk search)
    buffers: int = 1  # buffers of a size parameter's bytes it allocates (memcpy: source and destination)
    smp: bool = False  # runs on every vCPU of a guest with several (vcpus = N); else on one


@dataclass(frozen=True)
class Suite:
    name: str
    program: str
    common: dict[str, Param]
    benches: dict[str, Bench]


@dataclass(frozen=True)
class Catalogue:
    suites: dict[str, Suite]

    def bench(self, name: str, suites: tuple[str, ...]) -> Bench | None:
        """The bench of that name in the first of these suites that has it."""
        return next((self.suites[s].benches[name] for s in suites
                     if s in self.suites and name in self.suites[s].benches), None)

    def suites_with(self, name: str) -> list[str]:
        return [s.name for s in self.suites.values() if name in s.benches]

    @classmethod
    def from_json(cls, data: dict) -> Catalogue:
        def params(items: list[dict]) -> dict[str, Param]:
            return {p["name"]: Param(p["name"], p["type"], p["range"], p["default"]) for p in items}
        suites = {}
        for s in data["suites"]:
            benches = {b["name"]: Bench(b["name"], s["suite"], b["role"], b["kpi"], params(b["params"]),
                                        tuple(Metric(m["name"], m["unit"], m["kind"]) for m in b["metrics"]),
                                        tuple(b["channels"]), params(b["tune"]), b["buffers"], b.get("smp", False))
                       for b in s["benches"]}
            suites[s["suite"]] = Suite(s["suite"], s["program"], params(s["common"]), benches)
        return cls(suites)


@functools.cache
def load() -> Catalogue:
    """The catalogue of this source tree, built first when it is missing or stale."""
    path: Path = artifacts.build("catalogue", PATH)
    try:
        return Catalogue.from_json(json.loads(path.read_text()))
    except (ValueError, KeyError, TypeError) as err:
        raise InfrastructureError(f"{path}: not a bench catalogue ({err!r}); rebuild it with 'make catalogue'") from None
