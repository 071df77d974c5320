"""Metric kinds: what "worse" means for a metric and which statistics judge it.

A guest declares each metric's kind and KPI class on its `XT METRIC` line (next to the
benchmark's case table, docs/protocol.md); runs recorded before that declare nothing and
count as `duration` (unit cycles) or `throughput` (unit count), which the verdict says.

Units: `cycles` (counter ticks) and `ns` are times, converted with the run's counter
frequency; any other unit (`count`, or a rate such as `MB/s`, `iter/s`, `DMIPS` that a
probe bench's rate case computes itself) is a value in its own unit, never converted.

| kind | better | primary statistic | also reported |
|---|---|---|---|
| duration | lower | median | p99, WCET (max) |
| throughput | higher | median | min |
| latency | lower | p99 | max, deadline misses (share of samples above the spec's deadline) |
| gap | lower | stolen time (sum of gaps / measured window) | long gaps per second, p99 gap, max gap |
| loss | lower | mean | max |

A statistic is computed per unit of evidence (a run, or a window of a run in the
paired design) from a `Sample`: a whole run's streaming accumulators, or the raw values
of a window. Shares and rates are compared as differences (they can be 0); everything
else as ratios (log scale). Long gaps: gaps above the spec's deadline for the metric,
else LONG_GAP_US.
"""
from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np

from . import hist
from .accum import Stream
from .wording import in_ticks

LONG_GAP_US = 100.0
KPI_LABELS = {"kernel": "temporal performance (kernel level)", "application": "application level",
              "memory": "memory-intensive", "io": "I/O"}


@dataclass(frozen=True)
class Stat:
    key: str
    label: str
    unit: str    # ticks (shown as time) | share (of the CPU) | per_s | fraction (of samples) | count
    scale: str   # log: compared as ratios; diff: as differences


MEDIAN = Stat("median", "median", "ticks", "log")
P99 = Stat("p99", "p99", "ticks", "log")
MAX = Stat("max", "max", "ticks", "log")
MIN = Stat("min", "min", "ticks", "log")
MEAN = Stat("mean", "mean", "ticks", "log")
STOLEN = Stat("stolen_share", "stolen time", "share", "diff")
LONG_GAPS = Stat("long_gap_rate", "long gaps", "per_s", "diff")
MISSES = Stat("miss_share", "deadline misses", "fraction", "diff")

@dataclass(frozen=True)
class Kind:
    name: str
    better: str  # lower | higher
    primary: Stat
    secondary: tuple[Stat, ...]
    kpi: str     # default KPI class when the guest declares none

    @property
    def stats(self) -> tuple[Stat, ...]:
        return (self.primary, *self.secondary)


KINDS = {
    "duration": Kind("duration", "lower", MEDIAN, (P99, MAX), "application"),
    "throughput": Kind("throughput", "higher", MEDIAN, (MIN,), "kernel"),
    "latency": Kind("latency", "lower", P99, (MAX, MISSES), "kernel"),
    "gap": Kind("gap", "lower", STOLEN, (LONG_GAPS, P99, MAX), "kernel"),
    "loss": Kind("loss", "lower", MEAN, (MAX,), "kernel"),
}


@dataclass(frozen=True)
class MetricInfo:
    name: str
    unit: str
    kind: Kind
    kpi: str
    declared: bool  # False: the guest declared no kind (recorded by an older xtalk)

    @property
    def kpi_label(self) -> str:
        return KPI_LABELS.get(self.kpi, self.kpi)


def metric_info(name: str, declared: dict | None) -> MetricInfo:
    """A metric's kind and KPI class from its METRIC declaration (meta.json `metrics`)."""
    declared = declared or {}
    unit = declared.get("unit") or "cycles"
    kind = KINDS.get(declared.get("kind") or "")
    if kind is None:
        fallback = KINDS["duration" if in_ticks(unit) else "throughput"]
        return MetricInfo(name, unit, fallback, fallback.kpi, False)
    return MetricInfo(name, unit, kind, declared.get("kpi") or kind.kpi, True)


def metrics_of(runs: list[dict]) -> dict[str, MetricInfo]:
    out: dict[str, MetricInfo] = {}
    for r in runs:
        for m in (r.get("metrics") or {}).values():
            name = m.get("name")
            if name and (name not in out or (not out[name].declared and m.get("kind"))):
                out[name] = metric_info(name, m)
    return out


class Sample(ABC):
    """One unit's values of one metric: count, sum, quantiles, counts above a value, and
    the measured window (seconds) with the counter frequency (ticks per second)."""

    def __init__(self, n: float, total: float, window_s: float | None, freq_hz: float | None):
        self.n, self.total, self.window_s, self.freq_hz = n, total, window_s, freq_hz

    @abstractmethod
    def quantile(self, q: float) -> float: ...

    @abstractmethod
    def count_above(self, limit: float) -> float: ...

    @abstractmethod
    def maximum(self) -> float: ...

    @abstractmethod
    def minimum(self) -> float: ...


class ArraySample(Sample):
    """Raw values of a window; `weight`: how many samples each value stands for (a
    stride subsample of a run too long to keep whole)."""

    def __init__(self, values: np.ndarray, window_s: float | None, freq_hz: float | None, weight: float = 1.0):
        self.values = np.asarray(values, dtype=np.float64)
        self.weight = weight
        super().__init__(len(self.values) * weight, float(self.values.sum()) * weight, window_s, freq_hz)

    def quantile(self, q: float) -> float:
        return float(np.percentile(self.values, q * 100))

    def count_above(self, limit: float) -> float:
        return float(np.count_nonzero(self.values > limit)) * self.weight

    def maximum(self) -> float:
        return float(self.values.max())

    def minimum(self) -> float:
        return float(self.values.min())


class StreamSample(Sample):
    """A whole run: exact while the stream kept its values, else from its histogram."""

    def __init__(self, stream: Stream, window_s: float | None):
        self.stream = stream
        total = stream.moments.mean * stream.n if stream.n else 0.0
        super().__init__(stream.n, total, window_s, stream.freq_hz)

    def quantile(self, q: float) -> float:
        return float(self.stream.quantiles([q])[0][0])

    def count_above(self, limit: float) -> float:
        exact = self.stream.exact
        if exact is not None:
            return int(np.count_nonzero(exact > limit))
        low, width, count = hist.nonzero(self.stream.hist)
        return int(count[low >= limit].sum())  # buckets straddling the limit: not counted

    def maximum(self) -> float:
        return float(self.stream.vmax)

    def minimum(self) -> float:
        return float(self.stream.vmin)


def compute(stat: Stat, sample: Sample, long_gap_ticks: float | None = None,
            deadline_ticks: float | None = None) -> float | None:
    """The statistic of one unit, None where it cannot be computed (no samples, no
    measured window, no deadline)."""
    key = stat.key
    if key == "stolen_share":
        if not sample.window_s or not sample.freq_hz:
            return None
        return sample.total / (sample.window_s * sample.freq_hz)
    if key == "long_gap_rate":
        if not sample.window_s or long_gap_ticks is None:
            return None
        return sample.count_above(long_gap_ticks) / sample.window_s
    if sample.n == 0:
        return None
    if key == "miss_share":
        return None if deadline_ticks is None else sample.count_above(deadline_ticks) / sample.n
    if key == "mean":
        return sample.total / sample.n
    if key == "max":
        return sample.maximum()
    if key == "min":
        return sample.minimum()
    return sample.quantile({"median": 0.5, "p99": 0.99}[key])


def in_ns(stats: dict[str, float | None], info: MetricInfo, ns_per_tick: float | None) -> dict[str, float | None]:
    """A unit's statistics with the ones counted in ticks converted to ns (counts, rates
    and shares stay as they are; None without a counter frequency): comparable between
    backends whose counters tick at different rates."""
    def one(stat: Stat, v: float | None) -> float | None:
        if v is None or stat.unit != "ticks" or not in_ticks(info.unit):
            return v
        return v * ns_per_tick if ns_per_tick else None
    return {s.key: one(s, stats.get(s.key)) for s in info.kind.stats}


def transform(values: list[float], stat: Stat) -> tuple[np.ndarray, str]:
    """Unit values on the analysis scale: log for ratio statistics when all are > 0,
    else the values themselves."""
    v = np.asarray(values, dtype=np.float64)
    if stat.scale == "log" and len(v) and (v > 0).all():
        return np.log(v), "log"
    return v, "diff"


def to_pct(delta: float | None, scale: str, reference: float | None) -> float | None:
    """A change on the analysis scale as % of the reference value."""
    if delta is None:
        return None
    if scale == "log":
        return (math.exp(delta) - 1) * 100
    return delta / reference * 100 if reference else None


def long_gap_ticks(deadlines: list[dict], metric: str, freq_hz: float | None) -> tuple[float | None, float]:
    """(threshold in ticks, in µs) of a long gap: the metric's deadline, else LONG_GAP_US."""
    for d in deadlines:
        if d.get("metric") == metric:
            if d.get("ns") is not None:
                us = float(d["ns"]) / 1e3
                return (us * freq_hz / 1e6 if freq_hz else None), us
            if d.get("cycles") is not None and freq_hz:
                return float(d["cycles"]), float(d["cycles"]) / freq_hz * 1e6
    return (LONG_GAP_US * freq_hz / 1e6 if freq_hz else None), LONG_GAP_US
