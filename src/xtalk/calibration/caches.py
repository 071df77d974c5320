"""`xtalk host caches`: the cache hierarchy of a host and backend as it is, measured.

Two short derived campaigns on the spec's backend and CPUs (stored like any campaign):
1. *curve*: guests/bench/cache_probe.c (mode=curve) alone on the measured CPU, one run:
   latency against working-set size up to `hi` (at least 128 MiB and twice the LLC
   the machine reports), to memory -> each level's effective capacity and latency, and
   the memory latency (host/cache_curve.py).
2. *sharing*: cache_probe (mode=points) chasing one size inside each measured level
   (half of it) and streaming a buffer past every level, alone and next to a neighbour
   on the other CPU of the run (placement other-core) that copies a buffer of one
   level's size (memcpy: what it reads and writes is used again pass after pass, so a
   shared level keeps it; on this project's AMD host a memset, or a copy far past the
   level, evicted nothing: taken for a stream), RUNS repetitions, each solo run next in
   time to its neighbours' runs. A level is shared with that CPU in a pair where the
   neighbour made the chase inside it SHARED_X slower or more, on the fastest tenth of
   the samples (other tenants of a shared host make the chase slow now and then, alone
   too). The stream pass gives the bandwidth of one CPU alone, and next to a copy past
   every level on each other CPU of the run: that, plus what the copies achieved
   (their pressure, bytes read and written a second), is the bandwidth of all CPUs
   together; the line test (solo runs) the line size (host/cache_line.py: where the
   latency stops rising clearly against its spread, in every solo run alike).
Whether the machine could answer each of these (other work on the run's CPUs, the
hypervisor's steal) is judged from the runs that made it (calibration/caches_machine.py);
an answer it cannot give is kept with its numbers, not given as a fact.
The result is a fact of the platform (results/platform.py: OUT/platform/<hostname>-<backend>-caches.json)
that size expressions (`l1`, `l2`, `llc`, `shared`) resolve against from then on
(spec/sizes.py), beside what the machine reports (host facts, or the guest's CPUID).
Caveats: sharing is tested between the first CPU of the run and the second only, and
where a host moves its CPUs between caches (a cloud VM), a pair shows what it was then;
the bandwidth of all CPUs adds the measurer's reads to the copies' reads and writes.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np

from ..errors import Problem, SpecError
from ..host.cache_curve import Curve, analyse, point_latencies
from ..host.cache_line import line
from ..results.platform import write_caches
from ..results.records import load_caches
from ..results.schema import SAMPLE_DTYPE
from ..running.derived import base, run_derived, stressors_first
from ..spec.load import STRESSOR_DIM
from ..spec.model import resolve_backend
from ..spec.run_caches import platform_name
from ..spec.sizes import host_caches
from .caches_machine import claim_doubt, doubt_levels, machine, void

HI_MIN = 128 << 20        # the curve goes at least this far, and past twice the reported LLC
HI_MAX = 1 << 30
SHARED_X = 1.5            # shared: the neighbour makes the chase inside the level 1.5x slower
QUIET_PERCENTILE = 10     # ... in its quiet tenth: a busy machine's own bursts only add latency
STREAM_MIN = 64 << 20
RUNS = 3                  # pairs: each repetition's solo run and its runs beside a neighbour, back to back
DURATION_S = 0.5
CURVE_LIMIT_S = 60.0      # the curve ends when it reaches memory; this only bounds it


def reach(reported_llc: int) -> int:
    return min(HI_MAX, max(HI_MIN, 2 * reported_llc))


def curve_spec(raw: dict, hi: int) -> dict:
    spec = base(raw, f"{raw['name']}-caches-curve", CURVE_LIMIT_S, 1)
    spec["description"] = "xtalk host caches: load latency against working-set size, to memory"
    spec["measurer"] = {"bench": "cache_probe", "params": {"hi": hi}}
    return spec


def chase_sizes(levels) -> list[int]:
    """A size inside each level: half of it, and at least twice the level below."""
    sizes, below = [], 0
    for level in levels:
        sizes.append(max(2 * below, level.size_bytes // 2) // 64 * 64)
        below = level.size_bytes
    return sizes


def sharing_spec(raw: dict, curve: Curve) -> dict:
    chase = chase_sizes(curve.levels)
    stream = max(STREAM_MIN, 4 * curve.levels[-1].size_bytes)
    spec = base(raw, f"{raw['name']}-caches-sharing", DURATION_S, RUNS)
    spec["description"] = "xtalk host caches: a chase inside each level, alone and next to a copy of each level's size"
    spec["measurer"] = {"bench": "cache_probe", "params": {
        "mode": "points", "sizes": ",".join(map(str, chase)), "hi": sum(chase), "stream": stream,
        "line": max(4096, 2 * curve.levels[0].size_bytes // 64 * 64)}}
    spec["stressors"] = [{"name": f"copy-l{lv.level}", "bench": "memcpy", "params": {"size": lv.size_bytes}}
                         for lv in curve.levels]
    # past every level, on every other CPU of the run: all of them moving memory together
    spec["stressors"].append({"name": "copy", "bench": "memcpy", "params": {"size": stream},
                              "instances": max(1, len(raw["cpus"]) - 1)})
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


def sharing(stored: list[tuple[dict, np.ndarray]], curve: Curve) -> dict:
    """Per level: in each repetition, the quiet tenth (QUIET_PERCENTILE) of the chase inside
    the level alone and next to the copy of the level's size, run back to back; the level
    is shared in a pair where the copy made it SHARED_X slower or more, and shared where it
    was in any pair (a host whose CPUs move between caches shares at times; a worst case
    must count it). And the stream's bandwidth alone and next to the copy past every level;
    `stored`: the sharing campaign's runs (_runs)."""
    runs: dict[tuple[str, int], tuple[list[np.ndarray], np.ndarray]] = {}
    freq, stream_bytes = 0.0, 0
    solo = [(m, s) for m, s in stored if m["config"].get("placement") == "solo"]
    copying = [sum(p["rate"] for p in (m.get("pressure") or {}).values() if p.get("rate") and p.get("unit") == "bytes/s")
               for m, _ in stored if m["config"].get(STRESSOR_DIM) == "copy"]
    for meta, samples in stored:
        key = "solo" if meta["config"].get("placement") == "solo" else meta["config"][STRESSOR_DIM]
        runs[key, meta.get("repetition") or 0] = _points(meta, samples)
        freq, stream_bytes = float(meta["freq_hz"]), int(meta["guest_meta"]["stream_bytes"])
    reps = sorted({r for _, r in runs})
    levels = []
    for k, level in enumerate(curve.levels):
        pairs = [(float(np.percentile(runs["solo", r][0][k], QUIET_PERCENTILE)),
                  float(np.percentile(runs[f"copy-l{level.level}", r][0][k], QUIET_PERCENTILE))) for r in reps]
        ratios = [beside / alone for alone, beside in pairs]
        levels.append({"level": level.level, "chase_bytes": chase_sizes(curve.levels)[k],
                       "neighbour": f"memcpy of {level.size_bytes} bytes",
                       "alone_ns": [round(a * 1e9 / freq, 2) for a, _ in pairs],
                       "beside_ns": [round(b * 1e9 / freq, 2) for _, b in pairs],
                       "ratios": [round(x, 3) for x in ratios],
                       "shared_pairs": sum(x >= SHARED_X for x in ratios), "pairs": len(ratios),
                       "shared": any(x >= SHARED_X for x in ratios)})

    def bandwidth(key: str) -> float | None:
        passes = np.concatenate([runs[key, r][1] for r in reps])
        return stream_bytes * freq / float(np.median(passes)) if len(passes) else None
    beside = bandwidth("copy")
    return {"levels": levels, "line": line(solo),
            "bandwidth": {"one_cpu_bytes_s": bandwidth("solo"), "one_cpu_beside_copy_bytes_s": beside,
                          "all_cpus_bytes_s": beside + float(np.median(copying)) if beside and copying else None}}


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
    groups = {"levels": [meta]}
    sizes, lat = point_latencies(samples, meta["guest_meta"])
    curve = analyse(sizes, lat, float(meta["freq_hz"]))
    fact = {"levels": [lv.fact() for lv in curve.levels], "memory_ns": curve.memory_ns, "bandwidth": None,
            "curve": {"bytes": sizes.astype(int).tolist(),
                      "ns": [round(x * 1e9 / float(meta["freq_hz"]), 3) for x in lat]},
            "cpus": list(raw["cpus"][:2]), "campaigns": [result.store.path.name], "reported": reported,
            "reported_line_bytes": next((c.get("line_bytes") for c in host.get("caches", []) if c.get("line_bytes")),
                                        None),
            "cpu_model": host.get("cpu_model", ""), "kernel": host.get("kernel", "")}
    if curve.levels:
        neighbours = run_derived(sharing_spec(raw, curve), out, "cache sharing campaign")
        stored = _runs(neighbours)
        shared = sharing(stored, curve)
        fact["campaigns"].append(neighbours.store.path.name)
        for level, test in zip(fact["levels"], shared["levels"]):
            level.update(shared_with_neighbour=test["shared"], sharing=test)
        fact["bandwidth"], fact["line"] = shared["bandwidth"], shared["line"]
        config = [(m, m["config"]) for m, _ in stored]
        groups |= {"line": [m for m, c in config if c.get("placement") == "solo"], "sharing": [m for m, _ in config],
                   "bandwidth": [m for m, c in config if c.get("placement") == "solo" or c.get(STRESSOR_DIM) == "copy"]}
    fact["machine"] = doubt_levels(machine(host, groups, list(raw["cpus"][:2])),
                                   claim_doubt(fact["levels"], reported, curve.unsteady))
    fact = void(fact)
    fact["line_bytes"] = (fact.get("line") or {}).get("bytes")
    kind, options = resolve_backend(raw["backend"])
    platform = platform_name(kind, options)
    path = write_caches(out, host.get("hostname") or "unknown", platform, backend=kind, **fact)
    return load_caches(path) | {"path": str(path)}
