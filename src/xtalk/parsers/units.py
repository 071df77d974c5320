"""The units a foreign parser can store a sample in, and how a printed value is converted.

A unit belongs to a quantity; values of one quantity convert into each other:
- time: ns, us (µs), ms, s — always stored in ns (the analysis turns times into any
  time unit);
- count, cycles: as printed;
- bytes per second: B/s, kB/s (KB/s), MB/s, GB/s, TB/s (powers of 1000) and KiB/s,
  MiB/s, GiB/s, TiB/s (powers of 1024);
- bits per second: bit/s, kbit/s, Mbit/s, Gbit/s;
- events per second, one quantity per event: iter/s, ops/s, req/s, msg/s, pkt/s,
  frames/s, with the prefixes k, M, G (kops/s, Mops/s); Hz, kHz, MHz, GHz;
- figures of merit: DMIPS, MIPS, MFLOPS, GFLOPS (each its own).
Every unit but the times is a rate or a figure: stored in its own unit, never made a
time. A sample is stored as an integer in its metric's unit (the parser's declared one):
12.3 GB/s in a metric of MB/s is 12,300; in one of GB/s it would be 12 — declare the
smallest unit whose integer keeps the precision you need.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass


@dataclass(frozen=True)
class Unit:
    name: str
    quantity: str
    factor: float  # size in the quantity's first unit

    @property
    def is_time(self) -> bool:
        return self.quantity == "time"

    @property
    def is_rate(self) -> bool:
        return self.quantity not in ("time", "count", "cycles")


def _family(quantity: str, base: str, prefixes: dict[str, float]) -> dict[str, Unit]:
    return {p + base: Unit(p + base, quantity, f) for p, f in prefixes.items()}


SI = {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9}
EVENTS = ("iter", "ops", "req", "msg", "pkt", "frames")
BYTES = {**SI, "K": 1e3, "T": 1e12, "Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40}
UNITS: dict[str, Unit] = {
    **{n: Unit(n, "time", f) for n, f in (("ns", 1), ("us", 1e3), ("µs", 1e3), ("ms", 1e6), ("s", 1e9))},
    "count": Unit("count", "count", 1), "cycles": Unit("cycles", "cycles", 1),
    **_family("bytes per second", "B/s", BYTES),
    **_family("bits per second", "bit/s", SI),
    **_family("frequency", "Hz", SI),
    **{k: v for event in EVENTS
       for k, v in _family(f"{event} per second", f"{event}/s", SI).items()},
    **{n: Unit(n, n, 1) for n in ("DMIPS", "MIPS", "MFLOPS", "GFLOPS")},
}
TIME_STORED = "ns"


def known() -> str:
    """The known units, for a message (a family once, with its prefixes)."""
    return ("ns, us, ms, s, count, cycles, B/s kB/s MB/s GB/s TB/s KiB/s MiB/s GiB/s TiB/s, "
            "bit/s kbit/s Mbit/s Gbit/s, Hz kHz MHz GHz, " + ", ".join(f"{e}/s" for e in EVENTS)
            + " (also with k, M, G: kops/s), DMIPS, MIPS, MFLOPS, GFLOPS")


def closest(word: str) -> str:
    """' (did you mean X?)' with the known unit closest to `word` (case aside), or ''."""
    by_case = {u.lower(): u for u in UNITS}
    close = difflib.get_close_matches(word.lower(), by_case, n=1, cutoff=0.6)
    return f" (did you mean {by_case[close[0]]}?)" if close else ""


def stored_unit(declared: str) -> str:
    """The unit a metric declared in `declared` is stored in (times: ns)."""
    return TIME_STORED if UNITS[declared].is_time else declared


def convert(value: float, printed: str, declared: str) -> float | None:
    """`value` printed in `printed`, in the stored unit of a metric declared in `declared`;
    None when the two units are not of one quantity (or one is unknown)."""
    have, want = UNITS.get(printed), UNITS.get(stored_unit(declared))
    if have is None or want is None or have.quantity != want.quantity:
        return None
    return value * have.factor / want.factor


def default_kind(unit: str) -> str:
    """A metric's kind when the parser declares none: rates are throughput (higher is
    better), everything else a duration."""
    return "throughput" if UNITS[unit].is_rate else "duration"
