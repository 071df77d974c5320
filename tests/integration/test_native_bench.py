"""Integration tests for build/native/xtalk-bench: the shared bench code as host processes.

Each bench runs as a real process with small parameters; the sample ring is a file this
test creates and initialises per docs/protocol.md section 3. Checked: BEGIN/END lines,
sample counts, ring sequence continuity and wrap-around, the drain path (XT SAMPLE lines
when there is no ring), bad parameters (status=badparam, exit 2, the key named),
stressors running until killed, size expressions, the freestanding rule for the neutral
objects, and a small same-core interference check (qsort vs cache_thrash on one CPU).
The MiBench-style measurers (basicmath, bitcount, susan) are checked against Python
models (mibench_ref.py) of the same inputs; selftest passes here and fails on a wrong
expect_cpus= or freq_hz=; guests/lib/math.c is compared with the host's libm in ulps.
"""

import math
import os
import re
import shutil
import statistics
import struct
import subprocess
import time
from pathlib import Path

import pytest

from tests.integration.mibench_ref import basicmath_ref, bitcount_ref, susan_ref

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "build" / "native" / "xtalk-bench"
HDR = struct.Struct("<8sIIQQQQQQ")
SLOT = struct.Struct("<QQQII")
FIELD = re.compile(r'(\w+)=("[^"]*"|\S+)')


@pytest.fixture(scope="session")
def bench():
    if shutil.which("gcc") is None or shutil.which("make") is None:
        pytest.skip("gcc/make not installed")
    if (ROOT / "Makefile").exists():
        cmd = ["make", "-C", str(ROOT), "native"]
    else:
        cmd = ["make", "-C", str(ROOT), "-f", "mk/native.mk", "native"]
    subprocess.run(cmd, check=True, capture_output=True, timeout=300)
    assert BIN.exists()
    return BIN


def parse(out):
    """Console text -> list of (record type, fields dict) for XT lines."""
    recs = []
    for line in out.splitlines():
        if not line.startswith("XT "):
            continue
        kind = line.split()[1]
        fields = {k: v.strip('"') for k, v in FIELD.findall(line)}
        recs.append((kind, fields))
    return recs


def only(recs, kind):
    return [f for k, f in recs if k == kind]


def run(bin_, *args, timeout=30):
    p = subprocess.run([str(bin_), *args], capture_output=True, text=True, timeout=timeout)
    return p.returncode, parse(p.stdout), p.stdout


def make_ring(path, capacity, magic=b"XTRING01"):
    with open(path, "wb") as f:
        f.write(HDR.pack(magic, 1, 32, capacity, 0, 0, 0, 0, 0))
        f.write(b"\0" * (capacity * SLOT.size))
    return path


def read_ring(path):
    data = Path(path).read_bytes()
    magic, ver, slot, cap, wseq, hb, freq, _, _ = HDR.unpack_from(data, 0)
    slots = [SLOT.unpack_from(data, 64 + i * 32) for i in range(cap)]
    return dict(magic=magic, capacity=cap, write_seq=wseq, heartbeat=hb, freq_hz=freq), slots


def ring_samples(path):
    """Slots [write_seq - capacity, write_seq) in seq order, checked for continuity."""
    hdr, slots = read_ring(path)
    first = max(0, hdr["write_seq"] - hdr["capacity"])
    out = []
    for seq in range(first, hdr["write_seq"]):
        s = slots[seq % hdr["capacity"]]
        assert s[0] == seq, f"slot for seq {seq} holds seq {s[0]}"
        out.append(dict(seq=s[0], t=s[1], value=s[2], metric=s[3], flags=s[4]))
    return hdr, out


def check_begin_end(recs, bench_name, role="measurer", status="pass"):
    assert recs[0][0] == "BEGIN", recs[:2]
    b = recs[0][1]
    assert b["bench"] == bench_name and b["role"] == role
    assert b["platform"] == "native" and b["arch"] in ("x86_64", "arm64")
    assert int(b["freq_hz"]) > 1_000_000
    assert int(only(recs, "META")[0]["overhead_cycles"]) > 0
    assert recs[-1][0] == "END" and recs[-1][1]["status"] == status, recs[-1]
    return b, recs[-1][1]


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
]


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


# ---- the MiBench-style measurers, checked against independent Python references ----

def metas(recs):
    return {k: v for m in only(recs, "META") for k, v in m.items()}

def test_basicmath_matches_python_reference(bench):
    rc, recs, out = run(bench, "bench=basicmath", "iterations=3", "scale=2")
    assert rc == 0, out
    check_begin_end(recs, "basicmath")
    m = metas(recs)
    roots, root_sum, usqrt_sum, rad_sum, deg_sum = basicmath_ref(2)
    assert m["cubics"] == "36000" and int(m["roots"]) == roots
    assert abs(int(m["roots_sum_micro"]) - root_sum) <= 2, (m, root_sum)
    assert int(m["usqrt_sum"]) == usqrt_sum
    assert abs(int(m["rad_sum_micro"]) - rad_sum) <= 2
    assert abs(int(m["deg_sum_micro"]) - deg_sum) <= 2


@pytest.mark.parametrize("count,seed", [(1000, 7), (4096, 0xFFFFFFFF), (75000, 0x12345678)])
def test_bitcount_total_matches_python(bench, count, seed):
    rc, recs, out = run(bench, "bench=bitcount", "iterations=2", f"count={count}",
                        f"seed={seed}")
    assert rc == 0, out
    _, end = check_begin_end(recs, "bitcount")
    assert int(metas(recs)["total"]) == bitcount_ref(count, seed)
    assert [m["name"] for m in only(recs, "METRIC")] == [
        "bitcount_nibble", "bitcount_byte", "bitcount_shift", "bitcount_kernighan",
        "bitcount_swar"]
    assert end["samples"] == "10"

@pytest.mark.parametrize("w,h,seed,bt", [(64, 48, 1, 20), (50, 37, 5, 12)])
def test_susan_matches_python_reference(bench, w, h, seed, bt):
    rc, recs, out = run(bench, "bench=susan", "iterations=2", f"width={w}", f"height={h}",
                        f"seed={seed}", f"bt={bt}")
    assert rc == 0, out
    check_begin_end(recs, "susan")
    m = metas(recs)
    want = susan_ref(w, h, seed, bt)
    assert {k: int(m[k]) for k in want} == want
    assert want["edges"] > 0


def test_susan_default_size_finds_the_drawn_corners(bench):
    rc, recs, out = run(bench, "bench=susan", "iterations=2")
    assert rc == 0, out
    m = metas(recs)
    assert (m["width"], m["height"]) == ("384", "288")
    # two rectangles and a triangle are drawn: 11 corners
    assert m["corners"] == "11" and int(m["edges"]) > 1000


def test_membus_and_memcpy_sizes(bench):
    rc, recs, out = run(bench, "bench=membus", "duration_s=0.01", "size=1000k", "line=128",
                        "mode=write")
    assert rc == 0, out
    m = metas(recs)
    assert (m["bytes_per_pass"], m["lines_per_pass"], m["line"], m["mode"]) == (
        str(1000 * 1024 // 128 * 128), str(1000 * 1024 // 128), "128", "write")
    rc, recs, out = run(bench, "bench=membus", "duration_s=0.01", "llc_bytes=2m")
    assert rc == 0 and metas(recs)["bytes_per_pass"] == str(4 << 20), out
    rc, recs, out = run(bench, "bench=memcpy", "duration_s=0.01")
    assert rc == 0 and metas(recs)["bytes_per_pass"] == str(1 << 20), out


# ---- selftest ----

def test_selftest_passes_and_reports_every_check(bench):
    rc, recs, out = run(bench, "bench=selftest", "run=st", "iterations=5")
    assert rc == 0, out
    _, end = check_begin_end(recs, "selftest")
    m = metas(recs)
    for check in ("console", "cpus", "memory", "cache", "freq", "counter"):
        assert m[f"check_{check}"] == "pass", (check, out)
    assert m["check_timer"] == "pass"                 # POSIX timer + signal (timer_linux.c)
    assert m["timer_fired"] == "5" and m["timer_early"] == "0"
    assert int(m["mem_largest"]) == 64 << 20 and m["mem_failed_at"] == "0"
    assert int(m["cpus"]) == len(os.sched_getaffinity(0))
    assert m["counter_backwards"] == "0" and int(m["counter_min_step"]) > 0
    assert end["samples"] == "10"


def test_selftest_freq_agreement(bench):
    rc, recs, out = run(bench, "bench=selftest", "iterations=2", "mem_max=2m")
    hz = int(recs[0][1]["freq_hz"])
    rc, recs, out = run(bench, "bench=selftest", "iterations=2", "mem_max=2m",
                        f"freq_hz={hz + hz // 1000}")
    assert rc == 0, out                                # 0.1% off: within 2%
    m = metas(recs)
    assert m["check_freq"] == "pass" and m["freq_given"] == "1"
    assert 500 <= int(m["freq_dev_ppm"]) <= 1500


@pytest.mark.parametrize("args,check,why", [
    (["expect_cpus=999"], "cpus", "cpus"),
    (["freq_hz=1000000000"], "freq", "freq_hz disagrees"),
])
def test_selftest_failing_check(bench, args, check, why):
    rc, recs, out = run(bench, "bench=selftest", "run=sf", "iterations=2", "mem_max=2m", *args)
    assert rc == 1, out
    _, end = check_begin_end(recs, "selftest", status="fail")
    m = metas(recs)
    assert m[f"check_{check}"] == "fail" and why in end["reason"]
    assert m["check_counter"] == "pass"                # the other checks still ran
    assert end["samples"] == "4"


def test_math_library_against_libm(tmp_path):
    """guests/lib/math.c (the guests' libm replacement) vs the host's libm, in ulps."""
    if shutil.which("gcc") is None:
        pytest.skip("gcc not installed")
    drv = tmp_path / "drv.c"
    drv.write_text(r"""
#include <math.h>
#include <stdio.h>
double xt_sqrt(double), xt_cbrt(double), xt_exp(double), xt_sin(double), xt_cos(double),
       xt_atan(double), xt_acos(double);
static double ulps(double a, double b) {
    if (a == b) return 0;
    if (isnan(a) || isnan(b)) return 1e9;
    double u = nextafter(fabs(b), INFINITY) - fabs(b);
    return fabs(a - b) / u;
}
int main(void) {
    double w[7] = {0};
    for (int i = -200000; i <= 200000; i++) {
        double x = i * 1.37e-5 * (1 + (i & 7) * 0.31), t;
        double y = fmax(-1, fmin(1, x / 34));
        t = ulps(xt_sqrt(fabs(x) * 1e3), sqrt(fabs(x) * 1e3)); w[0] = fmax(w[0], t);
        t = ulps(xt_cbrt(x * 1e4), cbrt(x * 1e4)); w[1] = fmax(w[1], t);
        t = ulps(xt_exp(x * 20), exp(x * 20)); w[2] = fmax(w[2], t);
        t = ulps(xt_sin(x * 3), sin(x * 3)); if (fabs(sin(x * 3)) > 1e-3) w[3] = fmax(w[3], t);
        t = ulps(xt_cos(x * 3), cos(x * 3)); if (fabs(cos(x * 3)) > 1e-3) w[4] = fmax(w[4], t);
        t = ulps(xt_atan(x * 10), atan(x * 10)); w[5] = fmax(w[5], t);
        t = ulps(xt_acos(y), acos(y)); w[6] = fmax(w[6], t);
    }
    printf("%g %g %g %g %g %g %g\n", w[0], w[1], w[2], w[3], w[4], w[5], w[6]);
    printf("%d %d %d\n", xt_exp(0) == 1.0, xt_acos(-1) == M_PI, isnan(xt_acos(1.5)));
    printf("%.17g %.17g\n", xt_sqrt(4.9e-324), xt_cbrt(-27.0));
    return 0;
}
""")
    exe = tmp_path / "drv"
    subprocess.run(["gcc", "-O2", f"-I{ROOT / 'guests' / 'lib'}", str(drv),
                    str(ROOT / "guests" / "lib" / "math.c"), "-lm", "-o", str(exe)],
                   check=True, capture_output=True, timeout=120)
    lines = subprocess.run([str(exe)], capture_output=True, text=True, check=True,
                           timeout=60).stdout.split("\n")
    worst = [float(v) for v in lines[0].split()]
    assert max(worst) <= 8, dict(zip("sqrt cbrt exp sin cos atan acos".split(), worst))
    assert lines[1] == "1 1 1"
    sub, cube = (float(v) for v in lines[2].split())
    assert sub == pytest.approx(math.sqrt(4.9e-324), rel=1e-15) and cube == -3.0


# ---- timer_latency, sched_metric, vmexit_storm, irq_storm ----

def test_timer_latency_and_sustained_rate(bench, tmp_path):
    ring = make_ring(tmp_path / "ring", 1024)
    rc, recs, out = run(bench, "bench=timer_latency", "run=tl", "iterations=100", "period_us=300",
                        "sustain_count=50", "sustain_start_us=200", "sustain_max_us=3000",
                        f"ring={ring}")
    assert rc == 0, out
    _, end = check_begin_end(recs, "timer_latency")
    assert [(m["id"], m["name"], m["unit"]) for m in only(recs, "METRIC")] == [
        ("0", "timer_latency", "cycles"), ("1", "timer_missed", "count")]
    metas_ = only(recs, "META")
    m = metas(recs)
    assert m["lat_n"] == "100" and m["early"] == "0" and m["missing"] == "0"
    steps = [f for f in metas_ if "sustain_step" in f]
    assert steps and int(m["steps"]) == len(steps)
    _, samples = ring_samples(ring)
    lat = [s for s in samples if s["metric"] == 0]
    missed = [s for s in samples if s["metric"] == 1]
    assert len(lat) == 100 and len(missed) == len(steps)
    assert int(end["samples"]) == 100 + len(steps)
    assert all(s["value"] > 0 for s in lat)                    # never before the deadline
    assert min(s["value"] for s in lat) == int(m["lat_min"])
    assert [s["value"] for s in missed] == [int(f["missed"]) for f in steps]
    assert all(int(f["generated"]) >= 50 for f in steps)
    # the search goes down while no interrupt is lost, or up from a first lossy step
    # until one is not: either way the boundary is lossy < sustained
    best, lossy = int(m["sustained_period_ns"]), int(m["lossy_period_ns"])
    assert best or lossy
    if best:
        assert any(int(f["period_ns"]) == best and f["missed"] == "0" for f in steps)
    if best and lossy:
        assert lossy < best
    print(f"native timer latency: min {m['lat_min']} mean {m['lat_mean']} ticks; "
          f"sustained period {best} ns, lossy {lossy} ns")


def test_timer_latency_without_sustain_is_periodic(bench):
    rc, recs, out = run(bench, "bench=timer_latency", "iterations=30", "period_us=2000",
                        "sustain=0")
    assert rc == 0, out
    b, end = check_begin_end(recs, "timer_latency")
    samples = only(recs, "SAMPLE")
    assert len(samples) == 30 == int(end["samples"]) and {s["metric"] for s in samples} == {"0"}
    # entry times = deadlines (start + k x period, skipped ones excepted) + latency
    period = int(metas(recs)["period_ticks"])
    assert abs(period - int(b["freq_hz"]) * 2 // 1000) <= 1
    deadlines = [int(s["t"]) - int(s["value"]) for s in samples]
    gaps = [b_ - a for a, b_ in zip(deadlines, deadlines[1:])]
    assert all(g > 0 and g % period == 0 for g in gaps), gaps
    assert not any(ln.startswith("sustain_step") for ln in out.splitlines())


@pytest.mark.parametrize("tick", ["timer", "poll"])
def test_sched_metric_fair(bench, tick):
    rc, recs, out = run(bench, "bench=sched_metric", "run=sm", "interval_s=0.05", "iterations=4",
                        "threads=4", f"tick={tick}")
    assert rc == 0, out
    _, end = check_begin_end(recs, "sched_metric")
    m = metas(recs)
    assert m["tick"] == tick and m["threads"] == "4" and m["unfair_intervals"] == "0"
    counts = [int(c) for c in m["counts"].split(",")]
    assert len(counts) == 4 and max(counts) - min(counts) <= 1 and counts[0] > 1000
    samples = [int(s["value"]) for s in only(recs, "SAMPLE")]
    assert len(samples) == 4 and sum(samples) == sum(counts)


def test_sched_metric_starved_thread_fails(bench):
    rc, recs, out = run(bench, "bench=sched_metric", "run=ss", "interval_s=0.05", "iterations=2",
                        "starve=2")
    assert rc == 1, out
    _, end = check_begin_end(recs, "sched_metric", status="fail")
    assert end["reason"].startswith("sched_metric: thread 2 ran") and "below 90% of the mean" in end["reason"]
    assert only(recs, "ERROR")[0]["msg"] == end["reason"]
    m = metas(recs)
    counts = [int(c) for c in m["counts"].split(",")]
    assert m["unfair_intervals"] == "2" and end["samples"] == "2"
    assert abs(counts[0] - 2 * counts[2]) <= 3 and max(counts[2:]) - min(counts[2:]) <= 1


def test_vmexit_storm_native_kind(bench):
    rc, recs, out = run(bench, "bench=vmexit_storm", "role=measurer", "iterations=3", "ops=500")
    assert rc == 0, out
    m = metas(recs)
    assert (m["kind"], m["kinds"], m["ops_per_sample"]) == ("syscall", "syscall", "500")
    # a getppid round trip costs more than 20 counter ticks
    assert all(int(s["value"]) > 500 * 20 for s in only(recs, "SAMPLE"))


def test_irq_storm_counts_interrupts(bench):
    rc, recs, out = run(bench, "bench=irq_storm", "role=measurer", "iterations=5", "batch=40",
                        "period_us=20")
    assert rc == 0, out
    b, _ = check_begin_end(recs, "irq_storm")
    m = metas(recs)
    assert m["interrupts"] == "200" and m["lost"] == "0"
    # 40 interrupts at least 20 us apart each
    assert all(int(s["value"]) >= 40 * int(b["freq_hz"]) // 50000 for s in only(recs, "SAMPLE"))

