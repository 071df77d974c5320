"""The cache levels in a latency curve (guests/bench/cache_probe.c, mode=curve): the
latency of dependent loads against working-set size has a plateau per level and a rise
where a level is full (Servet; Cooper et al., ICCS 2018; lmbench's lat_mem_rd).

A plateau is a run of at least PLATEAU_POINTS sizes whose latency stays within RISE of
the run's first, rises less than FLAT an octave (a least-squares slope on log-log), and is
LEVEL_X above the plateau before; the sizes between two plateaus are the rise. The slope
test keeps a slow rise between two levels (a level shared with busy neighbours fills
gradually) from passing for a level of its own. A level's effective
capacity is where the curve crosses the geometric middle of its plateau's latency and
the next one's (interpolated on log size). Every plateau but the last is a cache level;
the last is memory when its latency is at least MEMORY_X times the first plateau's; else
the curve ended too early to see memory (`memory_ns` None) and the last rise is not
trusted either (the level before it may be a cache still filling).
A curve is unsteady where a size's latency falls below FALL times the slowest of a smaller
size: a larger working set cannot be that much faster while the caches hold still (seen on a
cloud VM: 1.7 ns at 127 KiB after 3.4 ns at 114 KiB, L2 speed at 4-9 MiB), so its levels are
not the hardware's (`unsteady` says where).
Caveats: a level shared with busy neighbours shows less capacity than it has (that is
what a workload gets); two levels whose latencies differ by less than RISE show as one.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

RISE = 1.25           # a plateau's latencies stay within 25 % of its first
LEVEL_X = 1.5         # a plateau less than 1.5x slower than the one before is that level, noisier
PLATEAU_POINTS = 4    # two thirds of an octave on the default grid (6 sizes per octave)
FLAT = 1.25           # a plateau rises less than 25 % an octave: measured levels here x1.00-1.13,
                      # a rise between L2 and a contended L3 x1.43 (4 sizes at 5.3-6.3 ns)
MEMORY_X = 30         # memory: at least 30 times an L1 hit
FALL = 0.6            # unsteady: a latency below 0.6x a smaller size's (steady curves here fell to 0.70x at
                      # most, within a noisy rise; the unsteady ones to 0.50x)


@dataclass(frozen=True)
class Level:
    level: int
    size_bytes: int            # effective capacity
    latency_ns: float          # the plateau's median latency per load

    def fact(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Curve:
    levels: tuple[Level, ...]
    memory_ns: float | None    # None: the curve ended before memory
    unsteady: str | None = None  # why the curve's levels are not the hardware's (a fall back), None where steady


def point_latencies(samples: np.ndarray, meta: dict) -> tuple[np.ndarray, np.ndarray]:
    """(bytes, fastest ticks per load) of each point of a curve run, from its samples
    (SAMPLE_DTYPE, metric 0) and the guest's META (p<k>_bytes, p<k>_steps, repeats,
    measured_points). The fastest: a neighbour only ever adds latency."""
    points, repeats = int(meta["measured_points"]), int(meta["repeats"])
    chase = samples[samples["metric"] == 0]
    index = (chase["seq"] // repeats) % points
    sizes, lat = [], []
    for k in range(points):
        values = chase["value"][index == k]
        if len(values):
            sizes.append(int(meta[f"p{k}_bytes"]))
            lat.append(values.min() / int(meta[f"p{k}_steps"]))
    return np.asarray(sizes, dtype=float), np.asarray(lat, dtype=float)


def flat(sizes: np.ndarray, lat: np.ndarray) -> bool:
    """Whether latencies rise less than FLAT an octave over these sizes (least squares)."""
    slope = np.polyfit(np.log2(sizes), np.log(lat), 1)[0]
    return bool(slope < math.log(FLAT))


def plateaus(sizes: np.ndarray, lat: np.ndarray) -> list[tuple[int, int]]:
    """[first, last] index of each plateau, in order: runs of PLATEAU_POINTS or more
    within RISE of their first point and flat, a run less than LEVEL_X above the one before joined
    to it (a level's latency is 2.5x or more the one's below on the CPUs we know: a
    smaller step is a neighbour's burst over part of a level)."""
    runs, i = [], 0
    while i < len(lat):
        j = i
        while j + 1 < len(lat) and lat[i] / RISE <= lat[j + 1] <= lat[i] * RISE:
            j += 1
        if j - i + 1 >= PLATEAU_POINTS and flat(sizes[i:j + 1], lat[i:j + 1]):
            runs.append((i, j))
            i = j + 1
        else:
            i += 1
    merged: list[tuple[int, int]] = []
    for first, last in runs:
        if merged and np.median(lat[first:last + 1]) < LEVEL_X * np.median(lat[merged[-1][0]:merged[-1][1] + 1]):
            merged[-1] = (merged[-1][0], last)
        else:
            merged.append((first, last))
    return merged


def crossing(sizes: np.ndarray, lat: np.ndarray, start: int, stop: int, middle: float) -> float:
    """Bytes where the latency first rises above `middle` after index `start`,
    interpolated on log size and log latency; the size at `stop` when it never does."""
    for i in range(start + 1, stop + 1):
        if lat[i] > middle:
            x0, x1, y0, y1 = np.log(sizes[i - 1]), np.log(sizes[i]), np.log(lat[i - 1]), np.log(lat[i])
            w = (math.log(middle) - y0) / (y1 - y0) if y1 > y0 else 0.0
            return float(np.exp(x0 + w * (x1 - x0)))
    return float(sizes[stop])


def unsteady(sizes: np.ndarray, lat: np.ndarray, freq_hz: float) -> str | None:
    """Where the curve falls back below FALL times the slowest latency of a smaller size
    (the largest such fall), None where it never does."""
    slowest = np.maximum.accumulate(lat)
    ratio = lat[1:] / slowest[:-1]
    if not len(ratio) or ratio.min() >= FALL:
        return None
    i = int(np.argmin(ratio)) + 1
    j = int(np.argmax(lat[:i] == slowest[i - 1]))
    ns = 1e9 / freq_hz
    return (f"the cache curve is unsteady: {lat[i] * ns:.2f} ns a load at {sizes[i] / 1024:.0f} KiB after "
            f"{lat[j] * ns:.2f} ns at {sizes[j] / 1024:.0f} KiB (a larger working set cannot be that much faster "
            f"while the caches hold still)")


def analyse(sizes: np.ndarray, lat_ticks: np.ndarray, freq_hz: float) -> Curve:
    """The levels of a curve of latencies in counter ticks per load."""
    found = plateaus(sizes, lat_ticks)
    medians = [float(np.median(lat_ticks[a:b + 1])) for a, b in found]
    ns = [m * 1e9 / freq_hz for m in medians]
    memory = bool(found) and len(found) > 1 and medians[-1] >= MEMORY_X * medians[0]
    levels = []
    for n, ((a, _), (c, _)) in enumerate(zip(found, found[1:])):
        middle = math.sqrt(medians[n] * medians[n + 1])
        levels.append(Level(n + 1, int(round(crossing(sizes, lat_ticks, a, c, middle))), round(ns[n], 2)))
    if not memory:
        levels = levels[:-1] if levels else levels  # the last plateau may be a cache still filling
    return Curve(tuple(levels), round(ns[-1], 1) if memory else None, unsteady(sizes, lat_ticks, freq_hz))
