"""`xtalk host caches`: the cache hierarchy of a host and backend as it is, measured.

Two short derived campaigns on the spec's backend and CPUs (stored like any campaign):
1. *curve*: guests/bench/cache_probe.c (mode=curve) alone on the measured CPU, one run:
   latency against working-set size up to `hi` (at least 128 MiB and twice the LLC
   the machine reports), to memory -> each level's effective capacity and latency, and
   the memory latency (host/cache_curve.py).
2. *sharing*: cache_probe (mode=points) chasing one size inside each measured level
   (between the level below and it) and streaming a buffer past every level, alone
   and next to a neighbour on the other CPU of the run (placement other-core) that
   sweeps a buffer of one level's size (cache_thrash) or copies past every level
   (memcpy): a level is shared with that CPU when its neighbour makes the chase inside
   it at least SHARED_X slower, compared on the fastest tenth of the samples (a host
   whose other tenants use the same cache makes the chase slow now and then, alone too). The stream pass gives the bandwidth of one CPU alone and
   next to the copying neighbour.
The result is a fact of the platform (results/platform.py: OUT/platform/<hostname>-<backend>-caches.json)
that size expressions (`l1`, `l2`, `llc`, `shared`) resolve against from then on
(spec/sizes.py), beside what the machine reports (host facts, or the guest's CPUID).
Caveats: sharing is tested between the first CPU of the run and the second only; the
bandwidth of all CPUs is that of one CPU next to the others' copying, times the CPUs
(a symmetric machine assumed).
"""
from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np

from ..errors import Problem, SpecError
from ..host.cache_curve import Curve, analyse, point_latencies
from ..results.platform import write_caches
from ..results.records import load_caches
from ..results.schema import SAMPLE_DTYPE
from ..running.derived import base, run_derived, stressors_first
from ..spec.load import STRESSOR_DIM
from ..spec.sizes import host_caches

HI_MIN = 128 << 20        # the curve goes at least this far, and past twice the reported LLC
HI_MAX = 1 << 30
SHARED_X = 1.5            # shared: the neighbour makes the chase inside the level 1.5x slower
QUIET_PERCENTILE = 10     # ... in its quiet tenth: a busy machine's own bursts only add latency
STREAM_MIN = 64 << 20
RUNS = 2
DURATION_S = 1.0
CURVE_LIMIT_S = 60.0      # the curve ends when it reaches memory; this only bounds it


def reach(reported_llc: int) -> int:
    return min(HI_MAX, max(HI_MIN, 2 * reported_llc))


def curve_spec(raw: dict, hi: int) -> dict:
    spec = base(raw, f"{raw['name']}-caches-curve", CURVE_LIMIT_S, 1)
    spec["description"] = "xtalk host caches: load latency against working-set size, to memory"
    spec["measurer"] = {"bench": "cache_probe", "params": {"hi": hi}}
    return spec


def chase_sizes(levels) -> list[int]:
    """A size inside each level, past the one below (their geometric middle; half the first)."""
    sizes, below = [], 0
    for level in levels:
        sizes.append(int(np.sqrt(below * level.size_bytes)) // 64 * 64 if below else level.size_bytes // 2 // 64 * 64)
        below = level.size_bytes
    return sizes


def sharing_spec(raw: dict, curve: Curve) -> dict:
    chase = chase_sizes(curve.levels)
    stream = max(STREAM_MIN, 4 * curve.levels[-1].size_bytes)
    spec = base(raw, f"{raw['name']}-caches-sharing", DURATION_S, RUNS)
    spec["description"] = "xtalk host caches: a chase inside each level, alone and next to a sweep of each level"
    spec["measurer"] = {"bench": "cache_probe", "params": {
        "mode": "points", "sizes": ",".join(map(str, chase)), "hi": sum(chase), "stream": stream}}
    spec["stressors"] = [{"name": f"sweep-l{lv.level}", "bench": "cache_thrash", "params": {"size": lv.size_bytes}}
                         for lv in curve.levels]
    spec["stressors"].append({"name": "copy", "bench": "memcpy", "params": {"size": stream}})
    spec["matrix"] = {"placement": ["solo", "other-core"], STRESSOR_DIM: [s["name"] for s in spec["stressors"]]}
    return stressors_first(spec)


def _runs(result) -> list[tuple[dict, np.ndarray]]:
    out = []
    for run in result.runs:
        path = result.store.run_dir(run["run_id"])
        meta = json.loads((path / "meta.json").read_text())
        out.append((meta, np.fromfile(path / "samples.bin", dtype=SAMPLE_DTYPE)))
    return out


def _points(meta: dict, samples: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
    """Ticks per load of each chase point's samples, and ticks per stream pass."""
    g = meta["guest_meta"]
    n = int(g["points"])
    chase = samples[samples["metric"] == 0]
    return ([chase["value"][k::n] / int(g[f"p{k}_steps"]) for k in range(n)],
            samples["value"][samples["metric"] == 1].astype(float))


def _pooled(runs: list) -> tuple[list[np.ndarray], np.ndarray]:
    points = [_points(m, s) for m, s in runs]
    return ([np.concatenate([p[k] for p, _ in points]) for k in range(len(points[0][0]))],
            np.concatenate([t for _, t in points]))


def sharing(result, curve: Curve) -> dict:
    """Per level: the chase's latency alone and next to its level's sweep (the quiet tenth,
    QUIET_PERCENTILE, and the median), shared when the quiet tenth rose SHARED_X or more;
    the stream's bandwidth alone and next to the copy."""
    by_config: dict[str, list] = {}
    for meta, samples in _runs(result):
        key = "solo" if meta["config"].get("placement") == "solo" else meta["config"][STRESSOR_DIM]
        by_config.setdefault(key, []).append((meta, samples))
    freq = float(by_config["solo"][0][0]["freq_hz"])
    ns = 1e9 / freq
    solo, solo_pass = _pooled(by_config["solo"])
    levels = []
    for k, level in enumerate(curve.levels):
        beside, _ = _pooled(by_config[f"sweep-l{level.level}"])
        quiet = [float(np.percentile(x[k], QUIET_PERCENTILE)) for x in (solo, beside)]
        middle = [float(np.median(x[k])) for x in (solo, beside)]
        levels.append({"level": level.level, "chase_bytes": chase_sizes(curve.levels)[k],
                       "alone_quiet_ns": round(quiet[0] * ns, 2), "beside_quiet_ns": round(quiet[1] * ns, 2),
                       "alone_median_ns": round(middle[0] * ns, 2), "beside_median_ns": round(middle[1] * ns, 2),
                       "ratio": round(quiet[1] / quiet[0], 3), "shared": quiet[1] / quiet[0] >= SHARED_X})
    _, copy_pass = _pooled(by_config["copy"])
    stream_bytes = int(by_config["solo"][0][0]["guest_meta"]["stream_bytes"])
    return {"levels": levels, "bandwidth": {
        "one_cpu_bytes_s": stream_bytes * freq / float(np.median(solo_pass)) if len(solo_pass) else None,
        "one_cpu_beside_copy_bytes_s": stream_bytes * freq / float(np.median(copy_pass)) if len(copy_pass) else None}}


def _check(raw: dict) -> None:
    cpus = raw.get("cpus") or []
    if len(cpus) < 2:
        raise SpecError("host caches", [Problem("cpus", "two CPUs or more are needed: the second runs the "
                                                        "neighbour that tells a shared level from a private one")])


def measure(raw: dict, out: Path, host: dict) -> dict:
    """Measure the hierarchy of the spec's backend on its first two CPUs and keep it as a
    fact of the platform; the record (results/records.CachesRecord)."""
    _check(raw)
    raw = copy.deepcopy(raw)
    reported = host_caches(host)
    result = run_derived(curve_spec(raw, reach(reported.get("llc", 0))), out, "cache curve campaign")
    (meta, samples), = _runs(result)
    sizes, lat = point_latencies(samples, meta["guest_meta"])
    curve = analyse(sizes, lat, float(meta["freq_hz"]))
    fact = {"levels": [lv.fact() for lv in curve.levels], "memory_ns": curve.memory_ns, "bandwidth": None,
            "curve": {"bytes": sizes.astype(int).tolist(),
                      "ns": [round(x * 1e9 / float(meta["freq_hz"]), 3) for x in lat]},
            "cpus": list(raw["cpus"][:2]), "campaigns": [result.store.path.name], "reported": reported,
            "cpu_model": host.get("cpu_model", ""), "kernel": host.get("kernel", "")}
    if curve.levels:
        neighbours = run_derived(sharing_spec(raw, curve), out, "cache sharing campaign")
        shared = sharing(neighbours, curve)
        fact["campaigns"].append(neighbours.store.path.name)
        for level, test in zip(fact["levels"], shared["levels"]):
            level.update(shared_with_neighbour=test["shared"], sharing=test)
        fact["bandwidth"] = shared["bandwidth"]
    path = write_caches(out, host.get("hostname") or "unknown", raw["backend"]["kind"], **fact)
    return load_caches(path) | {"path": str(path)}
