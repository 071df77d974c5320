"""Seed 003's benches (dhrystone, cachebench, stream) as host processes: each rate sample
agrees with its measured window (the rate is work x freq_hz / ticks), the values are
plausible, and the copy bandwidth falls from an L1-resident buffer to one past the caches.
Timing checks use each size's best sample (preemption on a busy host only lowers a rate)
and wide ratios; the figures are printed (pytest -s) for docs/benchmarks.md."""
import statistics

import pytest

from tests.framework.native_bench import bench, check_begin_end, only, run  # noqa: F401 (bench is a fixture)

MIB = 1 << 20


def metas(recs) -> dict:
    return {k: v for m in only(recs, "META") for k, v in m.items()}


def rates(recs) -> dict[str, list[int]]:
    """metric name -> its drained sample values."""
    names = {m["id"]: m["name"] for m in only(recs, "METRIC")}
    out: dict[str, list[int]] = {n: [] for n in names.values()}
    for s in only(recs, "SAMPLE"):
        out[names[s["metric"]]].append(int(s["value"]))
    return out


def work_of(name: str, meta: dict) -> float:
    """Units of work one sample of metric `name` does, in the metric's unit x seconds."""
    if name == "dhrystone_ips":
        return int(meta["loops"])
    if name == "dhrystone_dmips":
        return int(meta["loops"]) / 1757
    if name.startswith("cachebench_"):
        return int(meta["bytes_per_sample"]) / MIB
    arrays = 2 if name in ("stream_copy", "stream_scale") else 3
    return arrays * int(meta["array_bytes"]) / 1e6


@pytest.mark.parametrize("params", [["bench=dhrystone", "loops=20000"],
                                    ["bench=cachebench", "size_kib=256", "sample_kib=4096"],
                                    ["bench=stream", "size=3m"]], ids=lambda p: p[0][6:])
def test_rate_samples_add_up_to_their_windows(bench, params):
    """work / rate, summed over a case's samples, is the time its iterations took: at most
    its measured window (which also holds the untimed steps between them), and most of it."""
    rc, recs, out = run(bench, *params, "iterations=10", "run=r")
    assert rc == 0, out
    b, end = check_begin_end(recs, params[0][6:])
    meta, freq = metas(recs), int(b["freq_hz"])
    for m in only(recs, "METRIC"):
        assert m["kind"] == "throughput" and m["unit"] in ("iter/s", "DMIPS", "MiB/s", "MB/s"), m
        values = rates(recs)[m["name"]]
        assert len(values) == 10 and min(values) > 0, (m["name"], values)
        busy = sum(work_of(m["name"], meta) / v for v in values)
        window = int(meta[f"window_ticks_{m['id']}"]) / freq
        assert 0.3 * window < busy <= 1.02 * window, (m["name"], busy, window)


def test_dhrystone_dmips_are_iterations_per_second_over_1757(bench):
    rc, recs, out = run(bench, "bench=dhrystone", "loops=20000", "iterations=15", "run=d")
    assert rc == 0, out
    r, meta = rates(recs), metas(recs)
    ips, dmips = max(r["dhrystone_ips"]), max(r["dhrystone_dmips"])
    print(f"native dhrystone: best {ips:,} iter/s, {dmips:,} DMIPS, checksum {meta['checksum']}")
    assert dmips > 100                       # any core of the last 25 years; ~19000 on this host
    assert 1757 / 2 < ips / dmips < 1757 * 2  # two loops of the same work, each its own noise
    again = metas(run(bench, "bench=dhrystone", "loops=20000", "iterations=1", "run=d")[1])
    assert again["checksum"] == meta["checksum"]  # the same rounds leave the same state


def test_cachebench_copy_bandwidth_falls_past_the_caches(bench):
    """An L1-resident copy (a quarter of L1d) against one past L2 (4 x L2) and, where the
    last-level cache is small enough to pass cheaply (<= 32 MiB), well past it (4 x LLC). How
    much slower an L3-resident copy is depends on the CPU (over 2x on the host this test was
    written on, 1.3-1.5x on a 32 MiB-L3 one, none at all on an AMD EPYC whose L3 keeps pace
    with the bench's one 64-bit store a cycle: 37.6k against 49.7k MiB/s, noise both ways); out
    in memory it is more (3.8x there, 2.3-4x on the EPYC, but only 1.95x at 2 x LLC on CI's
    32 MiB-L3 host, where part of the copy still hits the L3: 57.7k against 29.6k MiB/s). So
    the fall past L2 is asked for only where the LLC cannot be passed; past the LLC a fall of
    over 1.5x is asked for everywhere."""
    caches = metas(run(bench, "bench=cachebench", "size_kib=4", "iterations=1", "run=c")[1])
    l1, l2, llc = (int(caches[k]) // 1024 for k in ("l1_bytes", "l2_bytes", "llc_bytes"))
    sizes = [max(l1 // 4, 1), 4 * l2] + ([4 * llc] if llc <= 32 * 1024 else [])
    best = {}
    for kib in sizes:
        rc, recs, out = run(bench, "bench=cachebench", f"size_kib={kib}", "sample_kib=8192", "iterations=9",
                            "warmup=1", "run=c", timeout=120)
        assert rc == 0, out
        r = rates(recs)
        best[kib] = (max(r["cachebench_copy"]), max(r["cachebench_rmw"]))
        print(f"native cachebench {kib} KiB: copy best {best[kib][0]:,} median "
              f"{statistics.median(r['cachebench_copy']):,.0f} MiB/s, rmw best {best[kib][1]:,} MiB/s")
    small, past_l2 = best[sizes[0]][0], best[sizes[1]][0]
    assert small > (0.6 if sizes[2:] else 1.1) * past_l2, best  # past L2: within noise where the LLC is passed
    assert all(small > 1.5 * best[kib][0] for kib in sizes[2:]), best  # past the LLC


def test_stream_kernels_on_a_buffer_past_l2(bench):
    caches = metas(run(bench, "bench=cachebench", "size_kib=4", "iterations=1", "run=s")[1])
    size = 12 * int(caches["l2_bytes"])      # each array 4 x L2
    rc, recs, out = run(bench, "bench=stream", f"size={size}", "iterations=5", "run=s", timeout=120)
    assert rc == 0, out
    meta, r = metas(recs), rates(recs)
    assert int(meta["elements"]) == size // 24 and int(meta["array_bytes"]) == 8 * (size // 24)
    assert list(r) == ["stream_copy", "stream_scale", "stream_add", "stream_triad"]
    print("native stream " + ", ".join(f"{k} {max(v):,}" for k, v in r.items()) + " MB/s (best)")
    assert all(min(v) > 0 for v in r.values())


@pytest.mark.parametrize("params", [["bench=dhrystone", "loops=20000"],
                                    ["bench=cachebench", "size_kib=256", "sample_kib=1024"],
                                    ["bench=stream", "size=3m"]], ids=lambda p: p[0][6:])
def test_each_vcpu_runs_the_cases_on_state_of_its_own(native_bench, params):
    """vcpus=2 (issue 45; seed 003's two-vCPU guest): every case runs on both vCPUs at once, as
    <case>_vcpu0 and <case>_vcpu1 with samples of each that add up to its own window, and each
    vCPU's check passes on its own state (the RMW's count includes its warmup: buffers shared
    between the vCPUs would fail them all, as would dhrystone's records)."""
    name = params[0][6:]
    one = only(run(native_bench, *params, "iterations=1", "run=v")[1], "METRIC")
    rc, recs, out = run(native_bench, *params, "vcpus=2", "vcpu_cpus=0,1", "iterations=6", "warmup=1", "run=v",
                        timeout=60)
    assert rc == 0, out[-2000:]
    b, end = check_begin_end(recs, name)
    meta, freq, r = metas(recs), int(b["freq_hz"]), rates(recs)
    metrics = only(recs, "METRIC")
    assert [(m["name"], m["vcpu"]) for m in metrics] == [(f"{m['name']}_vcpu{v}", str(v)) for v in (0, 1) for m in one]
    assert [int(m["id"]) for m in metrics] == list(range(2 * len(one)))
    assert int(end["samples"]) == 6 * len(metrics)
    for m in metrics:
        values = r[m["name"]]
        assert len(values) == 6 and min(values) > 0, (m["name"], values)
        busy = sum(work_of(m["name"].rsplit("_vcpu", 1)[0], meta) / v for v in values)
        window = int(meta[f"window_ticks_{m['id']}"]) / freq
        assert 0.3 * window < busy <= 1.02 * window, (m["name"], busy, window)
    if name == "dhrystone":  # the same rounds leave the same state on every vCPU as on one
        alone = metas(run(native_bench, *params, "iterations=1", "run=v")[1])
        assert meta["checksum"] == alone["checksum"]
