"""Synthetic campaigns (tests/framework/synthetic.py) that more than one test module
analyses: `gated_campaign`, two placements with deadlines and gates, a warm-up ramp in one
run and a failed run; `overhead_campaign`, native and qemu runs of a known guest slow-down,
each counted in its backend's own clock."""
import numpy as np

from tests.framework.synthetic import heavy_tail, write_campaign, write_run
from xtalk.results.store import CampaignStore

NATIVE_HZ, GUEST_HZ = 2e9, 1e9  # the guest's counter ticks at half the rate of the native one


def ramped(gen, length, factor):
    def g(rng, start, n):
        v = np.asarray(gen(rng, start, n), dtype=np.float64)
        idx = np.arange(start, start + n)
        v[idx < length] *= factor
        return v.astype(np.uint64)
    return g


def gated_campaign(tmp_path, n=5000) -> CampaignStore:
    spec = {"matrix": {"placement": ["solo", "same-core"]},
            "deadlines": [{"metric": "m", "ns": 2000}, {"metric": "m", "cycles": 1500}],
            "gates": [{"metric": "m", "stat": "median", "max_increase_pct": 100},
                      {"metric": "m", "stat": "p99", "max_increase_pct": 10}]}
    ids = ["solo-r1", "same-core-r1", "solo-r2", "same-core-r2", "same-core-r3"]
    path = write_campaign(tmp_path / "c", "synthetic", spec, ids)
    gens = {"solo": heavy_tail(1000, 100), "same-core": heavy_tail(1900, 150)}
    for i, rid in enumerate(ids[:4]):
        cid = rid.rsplit("-", 1)[0]
        gen = ramped(gens[cid], 300, 1.5) if rid == "solo-r1" else gens[cid]
        write_run(path, rid, {"placement": cid}, n, gen, seed=i, index=i, freq_hz=2e9)
    write_run(path, "same-core-r3", {"placement": "same-core"}, 100, gens["same-core"], seed=9, index=4,
              status="fail", extra_meta={"reason": "guest fault"})
    return CampaignStore(path)


def overhead_campaign(tmp_path, factor: float, runs: int = 5, extra: bool = False) -> CampaignStore:
    """Native runs of a 1000 ns duration (two metrics), guest runs `factor` times
    that, each counted in its backend's own clock."""
    spec = {"matrix": {"backend.kind": ["native", "qemu"], "placement": ["solo"]}}
    ids = [f"{kind}_solo-r{i}" for i in range(runs) for kind in ("native", "qemu")]
    path = write_campaign(tmp_path / "c", "ov", spec, ids + (["qemu_same-core-r0", "qemu_pc-r0"] if extra else []))
    for i, rid in enumerate(ids):
        kind = rid.split("_")[0]
        hz, scale = (NATIVE_HZ, 1.0) if kind == "native" else (GUEST_HZ, factor)
        ticks = 1000 * hz / 1e9 * scale
        write_run(path, rid, {"backend.kind": kind, "placement": "solo"}, 3000,
                  heavy_tail(ticks, ticks / 10), metric=("work", "copy"), kind=None, freq_hz=hz, seed=i, index=i)
    if extra:  # no native twin; and a qemu option as a dimension: the native configuration is its twin
        write_run(path, "qemu_same-core-r0", {"backend.kind": "qemu", "placement": "same-core"}, 3000,
                  heavy_tail(1000, 100), metric=("work", "copy"), kind=None, freq_hz=GUEST_HZ, seed=99)
        write_run(path, "qemu_pc-r0", {"backend.kind": "qemu", "placement": "solo", "backend.qemu.machine": "pc"},
                  3000, heavy_tail(1000, 100), metric=("work", "copy"), kind=None, freq_hz=GUEST_HZ, seed=98)
    return CampaignStore(path)
