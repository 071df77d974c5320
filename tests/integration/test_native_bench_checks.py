"""Bench-specific checks of build/native/xtalk-bench: the MiBench-style measurers
(basicmath, bitcount, susan) against Python models (tests/framework/mibench_ref.py) of
the same inputs; selftest passes here and fails on a wrong expect_cpus= or freq_hz=;
guests/lib/math.c against the host's libm in ulps; timer_latency (and its out_pin failing
here: a host process has no GPIO), sched_metric (fairness, starvation), vmexit_storm and irq_storm.
"""

import math
import os
import shutil
import subprocess

import pytest

from tests.framework.mibench_ref import basicmath_ref, bitcount_ref, susan_ref
from tests.framework.native_bench import (bench, check_begin_end, make_ring, only, parse, read_ring, ring_samples, run, BIN, HDR, ROOT, SLOT, FIELD)  # noqa: F401 (bench is a fixture)


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

@pytest.mark.timing
def test_timer_latency_and_sustained_rate(bench, tmp_path):
    ring = make_ring(tmp_path / "ring", 1024)
    rc, recs, out = run(bench, "bench=timer_latency", "run=tl", "iterations=100", "period_us=300", "sustain=1",
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


@pytest.mark.timing
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
    assert metas(recs)["out_pin"] == "none"


def test_timer_latency_out_pin_needs_a_gpio_output(bench):
    rc, recs, out = run(bench, "bench=timer_latency", "run=tp", "iterations=3", "out_pin=0")
    assert rc == 1, out
    _, end = check_begin_end(recs, "timer_latency", status="fail")
    assert end["reason"] == "timer_latency: out_pin: the platform has no GPIO output (arm64 with a PL061 has)", out


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
