"""Integration tests for build/native/xtalk-bench: the shared bench code as host processes.

Each bench runs as a real process with small parameters; the sample ring is a file this
test creates and initialises per docs/protocol.md section 3. Checked: BEGIN/END lines,
sample counts, ring sequence continuity and wrap-around, the drain path (XT SAMPLE lines
when there is no ring), bad parameters (status=badparam, exit 2, the key named),
stressors running until killed (and stating their work per pass, counting their passes in
a ring when given one), size expressions, the freestanding rule for the neutral
objects, and a small same-core interference check (qsort vs cache_thrash on one CPU).
Bench-specific checks are in test_native_bench_checks.py.
"""

import os
import re
import statistics
import subprocess
import time

import pytest

from tests.framework.native_bench import (bench, check_begin_end, make_ring, only, parse, read_ring, ring_samples, run, BIN, HDR, ROOT, SLOT, FIELD)  # noqa: F401 (bench is a fixture)
from xtalk.parsers.xt import KPIS, METRIC_KINDS


# bench, params, number of metrics (cases); iterations are added by the tests
MEASURERS = [
    ("qsort", ["size_kib=64"], 1),
    ("pointer_chase", ["size=256k", "steps=2000"], 1),
    ("membw", ["size=256k"], 2),
    ("cache_thrash", ["role=measurer", "size=64k"], 1),
    ("cpu_spin", ["role=measurer", "spin=1000"], 1),
    ("basicmath", ["scale=1"], 1),
    ("bitcount", ["count=2000"], 5),
    ("susan", ["width=64", "height=48"], 3),
    ("membus", ["role=measurer", "size=256k"], 1),
    ("memcpy", ["role=measurer", "size=64k"], 1),
    ("selftest", ["mem_max=4m", "mem_min=1m", "reads=100"], 2),
    ("sched_metric", ["interval_s=0.01"], 1),
    ("vmexit_storm", ["role=measurer", "ops=100"], 1),
    ("irq_storm", ["role=measurer", "batch=20"], 1),
    ("dhrystone", ["loops=2000"], 2),
    ("cachebench", ["size_kib=64", "sample_kib=256"], 2),
    ("stream", ["size=768k"], 4),
    ("ring_flood", ["burst=1"], 1),
]


# every bench's metrics: name -> (kind, kpi) (docs/benchmarks.md, "Metric kinds and KPI classes")
DECLARED = {
    "qsort": ("duration", "application"), "basicmath": ("duration", "application"),
    "bitcount_*": ("duration", "application"), "susan_*": ("duration", "application"),
    "cpu_spin": ("duration", "application"), "pointer_chase": ("duration", "memory"),
    "membw_*": ("duration", "memory"), "memcpy": ("duration", "memory"), "membus": ("duration", "memory"),
    "cache_thrash": ("duration", "memory"), "hidden_latency": ("gap", "kernel"),
    "timer_latency": ("latency", "kernel"), "timer_missed": ("loss", "kernel"),
    "sched_count": ("throughput", "kernel"), "irq_storm": ("duration", "kernel"),
    "vmexit_storm": ("duration", "kernel"), "selftest_*": ("duration", "kernel"),
    "dhrystone_*": ("throughput", "application"), "cachebench_*": ("throughput", "memory"),
    "stream_*": ("throughput", "memory"), "ring_flood": ("duration", "kernel"),
    "cache_probe_*": ("duration", "memory"),
    "gpio_irq_gap": ("duration", "io"), "lock_*": ("latency", "kernel"),
}
NO_GPIO = "gpio_irq"  # a host process has no GPIO interrupt: it fails, saying so (the arm64 probe runs it)
# with loops of their own: not one sample per iteration and case, metric after metric
EVERY_BENCH = MEASURERS + [("hidden_latency", ["threshold=0"], 1), ("timer_latency", ["sustain=0"], 2),
                           ("cache_probe", ["mode=points", "sizes=8192,65536", "hi=1m", "stream=256k", "line=64k"], 3),
                           ("lock", ["vcpus=2", "vcpu_cpus=0,1"], 4)]  # two metrics on each of two vCPU threads


def test_every_bench_declares_its_metric_kinds_and_kpi(bench):
    listed = re.findall(r"^XT_BENCH\((\w+)\)", (ROOT / "guests/lib/bench_list.h").read_text(), re.M)
    assert sorted(listed) == sorted([m[0] for m in EVERY_BENCH] + [NO_GPIO])
    rc, recs, out = run(bench, f"bench={NO_GPIO}", "duration_s=0.05")
    assert rc != 0 and "the platform has no GPIO interrupt" in out, out
    for name, params, ncases in EVERY_BENCH:
        rc, recs, out = run(bench, f"bench={name}", "iterations=3", *params)
        assert rc == 0, out
        metrics = only(recs, "METRIC")
        meta = {k: v for m in only(recs, "META") for k, v in m.items()}
        assert len(metrics) == ncases, out
        for m in metrics:
            assert m["kind"] in METRIC_KINDS and m["kpi"] in KPIS, m
            key = next(k for k in DECLARED if k == m["name"] or (k.endswith("*") and m["name"].startswith(k[:-1])))
            assert (m["kind"], m["kpi"]) == DECLARED[key], m
            assert int(meta[f"window_ticks_{m['id']}"]) > 0, (name, m)


def test_hidden_latency_window_is_its_duration(bench):
    rc, recs, out = run(bench, "bench=hidden_latency", "duration_s=1")
    assert rc == 0, out
    b, _ = check_begin_end(recs, "hidden_latency")
    meta = {k: v for m in only(recs, "META") for k, v in m.items()}
    window, planned = int(meta["window_ticks_0"]), int(b["freq_hz"])
    # the loop ends at its first counter read past the deadline: late by at most one gap
    assert planned <= window <= planned + max(int(meta["max_gap"]), planned // 1000), (window, planned)


@pytest.mark.parametrize("name,params,ncases", MEASURERS, ids=[m[0] for m in MEASURERS])
def test_ring_counts_and_continuity(bench, tmp_path, name, params, ncases):
    ring = make_ring(tmp_path / "ring", 256)
    rc, recs, out = run(bench, f"bench={name}", "run=t1", "iterations=12", "warmup=2",
                        f"ring={ring}", *params)
    assert rc == 0, out
    b, end = check_begin_end(recs, name)
    assert all(f["run"] == "t1" for _, f in recs)
    assert int(end["samples"]) == 12 * ncases
    assert not only(recs, "SAMPLE"), "a shared ring exists: no XT SAMPLE lines expected"
    metrics = only(recs, "METRIC")
    assert [int(m["id"]) for m in metrics] == list(range(ncases))
    hdr, samples = ring_samples(ring)
    assert hdr["write_seq"] == 12 * ncases and len(samples) == 12 * ncases
    assert hdr["freq_hz"] == int(b["freq_hz"])
    assert hdr["heartbeat"] == samples[-1]["t"]
    assert [s["metric"] for s in samples] == [i for i in range(ncases) for _ in range(12)]
    assert all(s["value"] > 0 for s in samples)
    assert all(a["t"] < b_["t"] for a, b_ in zip(samples, samples[1:]))


@pytest.mark.parametrize("name,params,ncases", MEASURERS, ids=[m[0] for m in MEASURERS])
def test_drain_path_prints_samples(bench, name, params, ncases):
    rc, recs, out = run(bench, f"bench={name}", "run=d1", "iterations=7", *params)
    assert rc == 0, out
    _, end = check_begin_end(recs, name)
    samples = only(recs, "SAMPLE")
    assert len(samples) == 7 * ncases == int(end["samples"])
    assert [int(s["seq"]) for s in samples] == list(range(7 * ncases))
    assert all(int(s["value"]) > 0 and int(s["t"]) > 0 for s in samples)
    # drained after the window: all SAMPLE lines come after the last METRIC/META line
    kinds = [k for k, _ in recs]
    assert kinds.index("SAMPLE") > max(i for i, k in enumerate(kinds) if k == "METRIC")


def test_ring_wraps_and_keeps_newest(bench, tmp_path):
    ring = make_ring(tmp_path / "ring", 8)
    rc, recs, out = run(bench, "bench=qsort", "iterations=20", "size_kib=16", f"ring={ring}")
    assert rc == 0, out
    hdr, samples = ring_samples(ring)
    assert hdr["write_seq"] == 20
    assert [s["seq"] for s in samples] == list(range(12, 20))


def test_drain_overflow_is_reported(bench):
    rc, recs, out = run(bench, "bench=qsort", "iterations=10", "size_kib=16", "buffer_slots=4")
    assert rc == 0, out
    assert [int(s["seq"]) for s in only(recs, "SAMPLE")] == [6, 7, 8, 9]
    assert any("6 oldest samples lost" in e.get("msg", "") for e in only(recs, "ERROR"))
    assert only(recs, "END")[0]["samples"] == "10"


def test_qsort_full_size_sorts(bench):
    rc, recs, out = run(bench, "bench=qsort", "iterations=3")
    assert rc == 0, out
    _, end = check_begin_end(recs, "qsort")
    meta = {k: v for m in only(recs, "META") for k, v in m.items()}
    assert meta["keys"] == str(1171 * 1024 // 4)
    assert end["samples"] == "3"


def test_hidden_latency_every_gap_with_zero_threshold(bench, tmp_path):
    ring = make_ring(tmp_path / "ring", 4096)
    rc, recs, out = run(bench, "bench=hidden_latency", "iterations=1000", "threshold=0",
                        f"ring={ring}")
    assert rc == 0, out
    _, end = check_begin_end(recs, "hidden_latency")
    meta = {k: v for m in only(recs, "META") for k, v in m.items()}
    assert meta["loops"] == "1000" and meta["gaps_over"] == "1000"
    assert end["samples"] == "1000"
    hist = only(recs, "HIST")
    assert sum(int(h["count"]) for h in hist) == 1000
    _, samples = ring_samples(ring)
    assert len(samples) == 1000 and max(s["value"] for s in samples) == int(meta["max_gap"])


def test_hidden_latency_duration_and_histogram(bench):
    rc, recs, out = run(bench, "bench=hidden_latency", "duration_s=0.3", "hist_buckets=8")
    assert rc == 0, out
    _, end = check_begin_end(recs, "hidden_latency")
    meta = {k: v for m in only(recs, "META") for k, v in m.items()}
    thr = int(meta["threshold_cycles"])
    assert thr == 20 * int(meta["overhead_cycles"])
    hist = only(recs, "HIST")
    assert sum(int(h["count"]) for h in hist) == int(meta["loops"]) > 10000
    assert all(int(h["log2_bucket"]) < 8 for h in hist)
    over = [h for h in hist if h.get("overflow") == "1"]
    assert all(h["log2_bucket"] == "7" for h in over)
    samples = only(recs, "SAMPLE")
    assert len(samples) == int(end["samples"]) == int(meta["gaps_over"])
    assert all(int(s["value"]) > thr for s in samples)


BADPARAMS = [
    (["bench=qsort", "bogus=1"], "bogus"),
    (["bench=qsort", "iterations=abc"], "iterations"),
    (["bench=nope"], "bench"),
    (["iterations=3"], "bench"),
    (["bench=qsort", "role=boss"], "role"),
    (["bench=qsort", "size_kib=0"], "size_kib"),
    (["bench=membw", "size=llc*x"], "size"),
    (["bench=membw", "size=12q"], "size"),
    (["bench=qsort", "duration_s=-1"], "duration_s"),
    (["bench=qsort", "ring=/nonexistent/ring"], "ring"),
    (["bench=qsort", "novalue"], "novalue"),
    (["bench=qsort", "warmup=1", "warmup=2"], "warmup"),
    (["bench=cache_thrash", "size=l2*2", "l2_bytes=lots"], "l2_bytes"),
    (["bench=basicmath", "bogus=1"], "bogus"),
    (["bench=basicmath", "scale=0"], "scale"),
    (["bench=bitcount", "scale=2"], "scale"),
    (["bench=bitcount", "seed=0x100000000"], "seed"),
    (["bench=bitcount", "count=0"], "count"),
    (["bench=susan", "bogus=1"], "bogus"),
    (["bench=susan", "width=8"], "width"),
    (["bench=susan", "bt=0"], "bt"),
    (["bench=membus", "bogus=1"], "bogus"),
    (["bench=membus", "line=12"], "line"),
    (["bench=membus", "mode=sideways"], "mode"),
    (["bench=memcpy", "count=3"], "count"),
    (["bench=memcpy", "size=4"], "size"),
    (["bench=selftest", "bogus=1"], "bogus"),
    (["bench=selftest", "mem_min=8m", "mem_max=4m"], "mem_min"),
    (["bench=selftest", "reads=1"], "reads"),
    (["bench=selftest", "freq_tol_pct=0"], "freq_tol_pct"),
    (["bench=timer_latency", "period_us=0"], "period_us"),
    (["bench=timer_latency", "sustain_factor=1"], "sustain_factor"),
    (["bench=timer_latency", "sustain_min_us=200"], "sustain_min_us"),
    (["bench=sched_metric", "starve=0"], "starve"),
    (["bench=sched_metric", "threads=1"], "threads"),
    (["bench=sched_metric", "tick=sometimes"], "tick"),
    (["bench=sched_metric", "interval_s=0"], "interval_s"),
    (["bench=vmexit_storm", "kind=pio"], "kind"),
    (["bench=vmexit_storm", "ops=0"], "ops"),
    (["bench=irq_storm", "batch=0"], "batch"),
    (["bench=irq_storm", "period_us=-1"], "period_us"),
]


@pytest.mark.parametrize("args,key", BADPARAMS, ids=[b[1] + "-" + str(i) for i, b in enumerate(BADPARAMS)])
def test_bad_parameter(bench, args, key):
    rc, recs, out = run(bench, "run=bp", *args)
    assert rc == 2, out
    errs = only(recs, "ERROR")
    assert errs and errs[0]["param"] == key and errs[0]["msg"], out
    assert recs[-1] == ("END", {"run": "bp", "status": "badparam"}), out


def test_bad_ring_magic_fails(bench, tmp_path):
    ring = make_ring(tmp_path / "ring", 16, magic=b"NOTARING")
    rc, recs, out = run(bench, "bench=qsort", "iterations=2", f"ring={ring}")
    assert rc == 1, out
    assert only(recs, "ERROR")[0]["param"] == "ring"
    assert recs[-1][1]["status"] == "fail"


def test_size_expressions(bench):
    cases = [(["size=4k"], 4096), (["size=llc*0.5", "llc_bytes=1m"], 524288),
             (["size=l2*2", "l2_bytes=64k"], 131072), (["size=1.5m"], 1572864),
             (["size=l1/2", "l1_bytes=32k"], 16384)]
    for args, want in cases:
        rc, recs, out = run(bench, "bench=cache_thrash", "duration_s=0.01", *args)
        assert rc == 0, out
        meta = {k: v for m in only(recs, "META") for k, v in m.items()}
        assert int(meta["bytes_per_pass"]) == want, (args, out)


STRESSOR_ARGS = {"cache_thrash": "size=1m", "cpu_spin": "spin=1000", "membus": "size=4m",
                 "memcpy": "size=256k", "vmexit_storm": "ops=100", "irq_storm": "batch=10"}


@pytest.mark.parametrize("name", sorted(STRESSOR_ARGS))
def test_stressor_runs_until_killed(bench, name):
    p = subprocess.Popen([str(bench), f"bench={name}", "run=s1", STRESSOR_ARGS[name]],
                         stdout=subprocess.PIPE, text=True)
    try:
        first = p.stdout.readline()
        assert first.startswith("XT BEGIN run=s1") and "role=stressor" in first
        time.sleep(0.7)
        assert p.poll() is None, "stressor ended on its own"
    finally:
        p.kill()
        rest = p.communicate(timeout=10)[0]
    assert "XT END" not in rest


@pytest.mark.parametrize("name", sorted(STRESSOR_ARGS))
def test_stressor_duration_ends(bench, name):
    t0 = time.monotonic()
    rc, recs, out = run(bench, f"bench={name}", "duration_s=0.3", STRESSOR_ARGS[name])
    assert rc == 0, out
    assert 0.25 < time.monotonic() - t0 < 5
    _, end = check_begin_end(recs, name, role="stressor")
    assert "samples" not in end and not only(recs, "METRIC")


# what one pass of each stressor does with STRESSOR_ARGS (guests/bench/*.c header comments)
WORK = {"cache_thrash": (1 << 20, "bytes"), "cpu_spin": (1000, "ops"), "membus": ((4 << 20) // 64, "accesses"),
        "memcpy": (2 * (256 << 10), "bytes"), "vmexit_storm": (100, "exits"), "irq_storm": (10, "interrupts")}


@pytest.mark.parametrize("name", sorted(STRESSOR_ARGS))
def test_a_stressor_states_its_work_per_pass_and_counts_its_passes_in_a_ring(bench, name, tmp_path):
    ring = make_ring(tmp_path / "ring", 8)
    rc, recs, out = run(bench, f"bench={name}", "duration_s=0.2", STRESSOR_ARGS[name], f"ring={ring}")
    assert rc == 0, out
    meta = {k: v for m in only(recs, "META") for k, v in m.items()}
    assert (int(meta["work_per_pass"]), meta["work_unit"]) == WORK[name], out
    hdr, samples = ring_samples(ring)  # the last 8 passes, one sample each: its ticks
    assert hdr["write_seq"] >= 1 and len(samples) == min(8, hdr["write_seq"]), hdr
    assert all(s["metric"] == 0 and s["value"] > 0 for s in samples), samples


def test_neutral_objects_are_freestanding(bench):
    """guests/lib and guests/bench may only call xt_* and the four libc_shims symbols."""
    allowed = {"memset", "memcpy", "memmove", "memcmp", "_GLOBAL_OFFSET_TABLE_"}
    objs = sorted((ROOT / "build" / "native" / "obj" / "guests").rglob("*.o"))
    assert len(objs) >= 10
    out = subprocess.run(["nm", "-u", *map(str, objs)], capture_output=True, text=True,
                         check=True).stdout
    undefined = {ln.split()[-1] for ln in out.splitlines() if ln.strip().startswith("U ")}
    assert undefined and not {u for u in undefined if not u.startswith("xt_")} - allowed


def _pinned_qsort_median(bench, cpu):
    p = subprocess.run([str(bench), "bench=qsort", "iterations=12", "warmup=1"],
                       capture_output=True, text=True, timeout=60,
                       preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))
    assert p.returncode == 0, p.stdout
    return statistics.median(int(s["value"]) for s in only(parse(p.stdout), "SAMPLE"))


@pytest.mark.timing
def test_same_core_thrash_slows_qsort(bench):
    cpu = min(os.sched_getaffinity(0))
    solo = _pinned_qsort_median(bench, cpu)
    s = subprocess.Popen([str(bench), "bench=cache_thrash"], stdout=subprocess.DEVNULL,
                         preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))
    try:
        time.sleep(0.3)
        same = _pinned_qsort_median(bench, cpu)
    finally:
        s.kill()
        s.wait(timeout=10)
    assert same > 1.3 * solo, (solo, same)


def test_hidden_latency_with_cache_flushing(bench):
    rc, recs, out = run(bench, "bench=hidden_latency", "duration_s=0.2", "flush_us=1000",
                        "flush_size=16m")
    assert rc == 0, out
    b, _ = check_begin_end(recs, "hidden_latency")
    meta = {k: v for m in only(recs, "META") for k, v in m.items()}
    assert int(meta["flush_ticks"]) > 0 and meta["flush_bytes"] == str(16 << 20)
    assert int(meta["flushes"]) >= 20
    # the flushes themselves (16 MiB memsets, ~ms each) are never recorded as gaps
    long_gaps = [s for s in only(recs, "SAMPLE") if int(s["value"]) > int(b["freq_hz"]) // 2000]
    assert len(long_gaps) < int(meta["flushes"]) // 2, (len(long_gaps), meta["flushes"])
