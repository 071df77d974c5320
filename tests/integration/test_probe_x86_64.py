"""The x86-64 probe guest under real QEMU: microvm (PVH) with KVM and TCG, pc (multiboot).

Boots build/x86_64/xtalk-probe*.elf (built here with `make -f mk/x86_64.mk x86_64`) with
all guest RAM in a shared file that also holds the sample ring, and checks the console
protocol, the ring contents and QEMU's exit status. A small platform self-test image
(C source below, linked against the platform objects) covers what the real benchmarks
cannot reach on purpose: faults in ring 3 and ring 0, stack guard pages, the LAPIC
timer in both modes, xt_alloc and the ring region, the return path from ring 3.
Booting, the console helpers, the ring check and the every-bench checks are
tests/framework/probe_boot.py's (shared with test_probe_arm64.py).
"""
from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from xtalk.telemetry.ring import RingReader

from tests.framework.probe_boot import (BENCH_PARAMS, RING_BYTES, ROOT, SELFTEST_PRELUDE, Boot, check_whole_lines,
                                          bench_names, bench_run_params, boot_qemu, build_selftest,
                                          check_bench_run, check_ring_reader, check_seed003, symbols)

BUILD = ROOT / "build" / "x86_64"
QEMU = shutil.which("qemu-system-x86_64")
QEMU_TRIMMED = shutil.which("qemu-system-x86_64-microvm")  # Debian's microvm-only build: no isa-debug-exit
pytestmark = pytest.mark.skipif(QEMU is None, reason="qemu-system-x86_64 not installed")

RAM_MB = 64
RING_GPA = 0x1000000  # 16 MiB: the default ring address convention (see guests/lib/x86_64/mem.c)
HDR = struct.Struct("<8sIIQQQQQQ")
SLOT = struct.Struct("<QQQII")
EXIT_PASS, EXIT_FAIL, EXIT_BADPARAM = 1, 3, 5  # isa-debug-exit: (code << 1) | 1


def _kvm_check() -> bool:
    if QEMU is None or not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return False
    try:
        p = subprocess.run([QEMU, "-M", "microvm", "-accel", "kvm", "-nodefaults",
                            "-no-user-config", "-display", "none", "-kernel", "/dev/null"],
                           capture_output=True, timeout=10)
    except subprocess.TimeoutExpired:
        return True
    return b"kvm" not in p.stderr.lower()


KVM = _kvm_check()
needs_kvm = pytest.mark.skipif(not KVM, reason="/dev/kvm missing or unusable")
ACCELS = [pytest.param("kvm", marks=[pytest.mark.kvm, needs_kvm]), "tcg"]


@pytest.fixture(scope="session")
def images() -> dict[str, Path]:
    r = subprocess.run(["make", "-f", "mk/x86_64.mk", "x86_64"], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return {"dual": BUILD / "xtalk-probe.elf", "pvh": BUILD / "xtalk-probe-pvh.elf"}


def boot(tmp_path: Path, kernel: Path, params: str, machine: str = "microvm",
         accel: str = "kvm", cpu: str | None = None, ring: bool = True,
         exit_device: bool = True, exits: bool | None = None, qemu: str | None = None,
         timeout: float = 30, smp: int = 1) -> Boot:
    """exits: QEMU ends by itself (default: when it has the exit device). smp: vCPUs."""
    extra = ["-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"] if exit_device else []
    if cpu:
        extra += ["-cpu", cpu]
    if smp > 1:
        extra += ["-smp", str(smp)]
    return boot_qemu(tmp_path, qemu or QEMU, kernel, params, machine=machine, accel=accel, ram_mb=RAM_MB,
                     ring_gpa=RING_GPA, ring_offset=RING_GPA, ring=ring, extra=extra,
                     exits=exit_device if exits is None else exits, timeout=timeout)


def check_ring(b: Boot, n: int) -> list[tuple]:
    """The ring read with struct, not RingReader: the layout of docs/protocol.md."""
    with open(b.ram, "rb") as f:
        f.seek(RING_GPA)
        hdr = HDR.unpack(f.read(HDR.size))
        f.seek(RING_GPA + 64)
        raw = f.read(32 * min(hdr[3], hdr[4]))
    slots = [SLOT.unpack_from(raw, i * 32) for i in range(len(raw) // 32)]
    magic, version, slot_size, cap, wseq, heartbeat, freq = hdr[:7]
    assert (magic, version, slot_size) == (b"XTRING01", 1, 32)
    assert wseq == n, b.console
    assert [s[0] for s in slots] == list(range(n))
    assert all(s[3] == 0 and s[2] > 0 for s in slots)
    ts = [s[1] for s in slots]
    assert ts == sorted(ts) and heartbeat == ts[-1]
    return slots


QSORT = "bench=qsort run=t1 role=measurer iterations=20 size_kib=256 freq_hz=2000000000"


@pytest.mark.parametrize("accel", ACCELS)
def test_microvm_pvh_qsort_ring(tmp_path, images, accel):
    b = boot(tmp_path, images["pvh"], QSORT, accel=accel)
    begin = b.fields("BEGIN")
    assert begin["platform"] == "microvm" and begin["arch"] == "x86_64", b.console
    assert begin["freq_hz"] == "2000000000"
    assert b.fields("END")["status"] == "pass", b.console
    assert b.fields("END")["samples"] == "20"
    assert b.returncode == EXIT_PASS
    check_ring(b, 20)
    assert not b.lines("SAMPLE")  # samples went to the shared ring, not the console
    ovh = int(b.meta()["overhead_cycles"])
    print(f"{accel}: first line {b.first_line_ms:.0f} ms, overhead_cycles={ovh}")
    if accel == "kvm":
        assert ovh < 100, "back-to-back counter read must stay < 100 cycles in ring 3"
        assert b.first_line_ms < 1000


@pytest.mark.parametrize("accel", ACCELS)
def test_pc_multiboot(tmp_path, images, accel):
    b = boot(tmp_path, images["dual"], QSORT.replace("iterations=20", "iterations=3"),
             machine="pc", accel=accel)
    assert b.fields("BEGIN")["platform"] == "pc", b.console
    assert b.fields("END")["status"] == "pass", b.console
    assert b.returncode == EXIT_PASS
    check_ring(b, 3)


def test_dual_image_on_microvm_takes_multiboot(tmp_path, images):
    """QEMU prefers multiboot when both entries exist; the image still says microvm."""
    b = boot(tmp_path, images["dual"], QSORT.replace("iterations=20", "iterations=2"),
             accel="kvm" if KVM else "tcg", ring=False)
    assert b.fields("BEGIN")["platform"] == "microvm", b.console
    assert b.fields("END")["status"] == "pass"
    assert len(b.lines("SAMPLE")) == 2  # no ring: drained over the console
    assert b.returncode == EXIT_PASS


@pytest.mark.parametrize("extra,key", [
    (f"ring_gpa=0x100000 ring_bytes={RING_BYTES}", "ring_gpa"),    # over the image
    ("ring_gpa=0x1000000", "ring_bytes"),                           # size missing
    (f"ring_gpa=0x1000010 ring_bytes={RING_BYTES}", "ring_gpa"),    # misaligned
    (f"ring_gpa=0x8000000 ring_bytes={RING_BYTES}", "ring_gpa"),    # beyond RAM
])
def test_bad_ring_parameters(tmp_path, images, extra, key):
    b = boot(tmp_path, images["pvh"], f"{QSORT} {extra}", accel="kvm" if KVM else "tcg",
             ring=False)
    assert b.fields("ERROR").get("param") == key, b.console
    assert b.fields("END")["status"] == "badparam"
    assert b.returncode == EXIT_BADPARAM


# The shared BENCH_PARAMS plus what needs more care in 64 MiB of RAM.
X86_BENCH_PARAMS = {
    **BENCH_PARAMS,
    "membus": "size=256k iterations=20000",            # default llc*2: more than 64 MiB RAM; a count fits the ring
    "selftest": "iterations=3 mem_max=8m",
}
FREQ = 2_000_000_000            # passed in: the guest cannot calibrate its TSC on microvm


# Benches that need several vCPUs: run on two (-smp 2, vcpus=2), as test_probe_arm64 does.
SMP_BENCH_PARAMS = {"lock": "vcpus=2 iterations=30 think_us=1000"}   # time for handovers both ways


@pytest.mark.parametrize("accel", ACCELS)
@pytest.mark.parametrize("name", bench_names())
def test_every_bench_passes(tmp_path, images, accel, name):
    b = boot(tmp_path, images["pvh"],
             f"{bench_run_params(name, {**X86_BENCH_PARAMS, **SMP_BENCH_PARAMS})} freq_hz={FREQ}",
             accel=accel, smp=2 if name in SMP_BENCH_PARAMS else 1)
    check_bench_run(b, name, exit_pass=EXIT_PASS, offset=RING_GPA, freq=FREQ)


@pytest.mark.parametrize("accel", ACCELS)
@pytest.mark.parametrize("machine,image", [("microvm", "pvh"), ("pc", "dual")])
def test_selftest_on_two_vcpus(tmp_path, images, accel, machine, image):
    """smp.c: the MADT (or fw_cfg) counts 2 vCPUs, INIT-SIPI-SIPI starts the second, which
    counts itself in from ring 3 with its own xt_cpu_index (selftest's check_smp)."""
    b = boot(tmp_path, images[image], f"bench=selftest run=smp iterations=3 mem_max=8m freq_hz={FREQ} "
             "expect_cpus=2", machine=machine, accel=accel, smp=2)
    assert b.fields("END")["status"] == "pass" and b.returncode == EXIT_PASS, b.console
    m = b.meta()
    assert m["check_cpus"] == "pass" and m["check_smp"] == "pass", b.console
    assert m["smp_cpus"] == "2" and m["smp_arrived"] == "2" and m["smp_wrong_index"] == "0"
    assert m["check_timer"] == "pass", b.console    # the boot vCPU's LAPIC timer still works


def test_selftest_on_one_vcpu_skips_smp(tmp_path, images):
    b = boot(tmp_path, images["pvh"], f"bench=selftest run=smp iterations=3 mem_max=8m freq_hz={FREQ}",
             accel="kvm" if KVM else "tcg")
    assert b.fields("END")["status"] == "pass" and b.meta()["check_smp"] == "skip", b.console


@pytest.mark.parametrize("accel", ACCELS)
def test_a_bench_on_two_vcpus(tmp_path, images, accel):
    """driver.c's vcpus=2 on the probe: cpu_spin's case on both vCPUs at once, one ring with
    two writers (contiguous seqs; times need not be in seq order across writers), each
    vCPU's copy with one sample per iteration."""
    b = boot(tmp_path, images["pvh"], f"bench=cpu_spin run=v2 role=measurer vcpus=2 spin=4096 "
             f"iterations=10 freq_hz={FREQ}", accel=accel, smp=2)
    assert b.fields("END")["status"] == "pass" and b.returncode == EXIT_PASS, b.console
    n = int(b.fields("END")["samples"])
    metrics = {m["name"]: int(m["id"]) for m in
               (dict(re.findall(r"(\w+)=(\S+)", ln)) for ln in b.lines("METRIC"))}
    first = [metrics[f"cpu_spin_vcpu{v}"] for v in (0, 1)]
    reader = RingReader(b.ram, offset=RING_GPA)
    try:
        assert reader.header()[0] == n
        rec = reader.read().records
    finally:
        reader.close()
    assert rec["seq"].tolist() == list(range(n)) and set(rec["metric"].tolist()) <= set(metrics.values())
    assert [rec["metric"].tolist().count(m) for m in first] == [10, 10], b.console


@pytest.mark.parametrize("accel", ACCELS)
def test_seed003_benches(tmp_path, images, accel):
    check_seed003(lambda params: boot(tmp_path, images["pvh"], f"{params} freq_hz={FREQ}", accel=accel,
                                      ring=False), f"x86_64 {accel}")


def test_a_rate_without_a_counter_frequency_is_a_bad_parameter(tmp_path, images):
    """microvm gives the guest no TSC frequency: a rate bench needs freq_hz=."""
    b = boot(tmp_path, images["pvh"], "bench=dhrystone run=nf loops=100 iterations=1",
             accel="kvm" if KVM else "tcg")
    assert b.fields("ERROR")["param"] == "freq_hz" and b.returncode == EXIT_BADPARAM, b.console


def test_new_benches_facts(tmp_path, images):
    """timer_latency's sustained-rate search, sched_metric's fairness and vmexit_storm's
    kinds, in one guest each (KVM if usable)."""
    accel = "kvm" if KVM else "tcg"
    b = boot(tmp_path, images["pvh"], f"bench=timer_latency run=tl freq_hz={FREQ} iterations=10 "
             "period_us=500 sustain=1 sustain_count=20 sustain_start_us=50 sustain_max_us=3000", accel=accel)
    assert b.fields("END")["status"] == "pass", b.console
    steps = [dict(re.findall(r"(\w+)=(\S+)", ln)) for ln in b.lines("META") if "sustain_step=" in ln]
    summary = b.fields("META")
    assert steps and int(summary["steps"]) == len(steps), b.console
    best = int(summary["sustained_period_ns"])
    assert best == 0 or any(int(s["period_ns"]) == best and s["missed"] == "0" for s in steps)
    assert int(b.fields("END")["samples"]) == 10 + len(steps)
    for kind in ("pio", "mmio", "cpuid", "gate"):
        b = boot(tmp_path, images["pvh"], f"bench=vmexit_storm run=vx role=measurer freq_hz={FREQ} "
                 f"kind={kind} ops=20 iterations=2", accel=accel)
        assert b.fields("END")["status"] == "pass", b.console
        assert b.meta()["kind"] == kind and b.meta()["kinds"] == "pio,mmio,cpuid,gate"
    b = boot(tmp_path, images["pvh"], f"bench=vmexit_storm run=vx freq_hz={FREQ} kind=hvc", accel=accel)
    assert b.fields("ERROR")["param"] == "kind" and b.returncode == EXIT_BADPARAM, b.console


@pytest.mark.parametrize("accel", ACCELS)
def test_starved_sched_metric_fails(tmp_path, images, accel):
    b = boot(tmp_path, images["pvh"], f"bench=sched_metric run=sm freq_hz={FREQ} interval_s=0.02 "
             "iterations=2 starve=2", accel=accel)
    end = b.fields("END")
    assert end["status"] == "fail" and "thread 2 " in end["reason"], b.console
    assert b.returncode == EXIT_FAIL and end["samples"] == "2"
    counts = [int(c) for c in b.meta()["counts"].split(",")]
    # snapshots at the timer tick: the round in progress leaves counts 1 apart
    assert len(counts) == 5 and abs(counts[0] - counts[1]) <= 1
    assert abs(counts[2] * 2 - counts[1]) <= 3 and max(counts[2:]) - min(counts[2:]) <= 1
    check_ring_reader(b, 2, offset=RING_GPA, freq=FREQ)


# ---- platform self-test image -------------------------------------------------------

SELFTEST_C = r"""
/* Test-only xt_main: exercises the x86-64 platform through platform.h. */
""" + SELFTEST_PRELUDE + r"""

static volatile uint64_t fired;
/* Uses SSE registers: the platform must preserve the interrupted code's. */
static void on_timer(uint64_t now) { double x = (double)now, y = x * 0.5; fired = (uint64_t)(y + y); }

static int recurse(int n) { volatile char pad[4000]; pad[0] = (char)n; return recurse(n + 1) + pad[0]; }

static long in_user(void *arg) { return (long)arg * 2; }

/* case=smp_lines: every vCPU writes 200 lines (one xt_console_write each) at once: none
 * may be torn by another vCPU's. */
static long u_lines(void *a) { for (unsigned i = 0; i < 200; i++) line((unsigned)(uintptr_t)a, i); return 0; }
static void smp_lines(void *a)
{
	xt_run_unprivileged(u_lines, a);
	__atomic_fetch_add(&lines_done, 1, __ATOMIC_RELEASE);
}
/* case=smp_null / smp_kernel: the fault happens on vCPU 1 (ring 3; ring 0 in the console gate) */
static void smp_fault(void *a)
{
	const char *c = a;
	if (is(c, "smp_null")) *(volatile int *)0 = 1;
	if (is(c, "smp_kernel")) xt_console_write((const char *)8, 4);
}
static void alloc_extra(void) { put(" unpriv="); putu(xt_run_unprivileged(in_user, (void *)21)); }

void xt_main(void)
{
	const char *c = param("case");
	if (is(c, "null")) { *(volatile int *)0 = 1; }
	if (is(c, "ud")) { __asm__ volatile("ud2"); }
	if (is(c, "gp")) { __asm__ volatile("cli"); }
	if (is(c, "stack")) { int depth = recurse(0); put("XT META run=st depth="); putu(depth); }
	if (is(c, "kernel")) { xt_console_write((const char *)8, 4); }
	if (is(c, "return")) return;
	if (is(c, "timer")) {
		uint64_t hz = 1000000000, dl = xt_counter() + hz / 20, n = 0;
		if (!xt_timer_oneshot(dl, on_timer)) end("fail");
		double spin = 0;
		while (!fired && xt_counter() < dl + 20 * hz) spin += 1.0, n++;
		put("XT META run=st timer_late="); putu(fired - dl);
		put(" fired="); putu(fired >= dl); put(" xmm_ok="); putu(n > 0 && spin == (double)n); put("\n");
		end(fired >= dl ? "pass" : "fail");
	}
	if (is(c, "alloc")) alloc_case(0, alloc_extra);
	if (is(c, "smp_lines")) {
		unsigned n = xt_ncpus(), started = 1;
		for (unsigned v = 1; v < n; v++) started += xt_cpu_start(v, smp_lines, (void *)(uintptr_t)v);
		smp_lines(0);
		uint64_t limit = xt_counter() + 20000000000ull;
		while (lines_done < started && xt_counter() < limit) ;
		put("XT META run=st started="); putu(started); put(" done="); putu(lines_done); put("\n");
		end(started == n && lines_done == n ? "pass" : "fail");
	}
	if (is(c, "smp_null") || is(c, "smp_kernel")) {
		if (!xt_cpu_start(1, smp_fault, (void *)c)) end("fail");
		uint64_t limit = xt_counter() + 20000000000ull;
		while (xt_counter() < limit) ;
		end("fail");                     /* the fault report should have ended the run */
	}
	end("badparam");
}
"""


@pytest.fixture(scope="session")
def selftest(images, tmp_path_factory) -> Path:
    return build_selftest(tmp_path_factory.mktemp("selftest"), SELFTEST_C, "x86_64", BUILD,
                          flags=["-mno-red-zone"], ld_flags=["-Wl,--defsym=x86_mb_magic=0"])


@pytest.mark.parametrize("accel", ACCELS)
@pytest.mark.parametrize("case,vector,addr,err", [
    ("null", 14, 0, 0x6),        # user write to the unmapped NULL page
    ("ud", 6, 0, 0),             # ud2 outside the two gates
    ("gp", 13, 0, 0),            # cli in ring 3 (IOPL 0)
    ("stack", 14, None, 0x6),    # user stack overflow into its guard page
    ("kernel", 14, 8, 0x0),      # ring-0 read through a bad pointer from ring 3
])
def test_faults_are_reported(tmp_path, selftest, accel, case, vector, addr, err):
    b = boot(tmp_path, selftest, f"run=st case={case}", accel=accel)
    f = b.fields("ERROR")
    m = re.fullmatch(r'"fault vector=(\d+) rip=0x([0-9a-f]+) addr=0x([0-9a-f]+) err=0x([0-9a-f]+)"',
                     f["msg"])
    assert m, b.console
    assert int(m.group(1)) == vector and int(m.group(4), 16) == err, b.console
    if addr is None:
        guard = symbols(selftest)["x86_user_stack_guard"]
        assert guard <= int(m.group(3), 16) < guard + 4096
    else:
        assert int(m.group(3), 16) == addr
    assert b.fields("END")["status"] == "fault" and b.fields("END")["run"] == "st"
    assert b.returncode == EXIT_FAIL


@pytest.mark.parametrize("accel", ACCELS)
@pytest.mark.parametrize("cpu", ["qemu64,+tsc-deadline", "qemu64,-tsc-deadline"])
def test_lapic_timer(tmp_path, selftest, accel, cpu):
    b = boot(tmp_path, selftest, "run=st case=timer", accel=accel, cpu=cpu)
    assert b.fields("END")["status"] == "pass", b.console
    meta = b.meta()
    assert meta["fired"] == "1" and meta["xmm_ok"] == "1"
    assert int(meta["timer_late"]) < 100_000_000  # ~40 ms: catches a bad one-shot calibration
    print(f"{accel} {cpu}: handler {meta['timer_late']} ticks after the deadline")


@pytest.mark.parametrize("accel", ACCELS)
def test_alloc_ring_and_unprivileged(tmp_path, selftest, accel):
    b = boot(tmp_path, selftest, "run=st case=alloc", accel=accel)
    assert b.fields("END")["status"] == "pass", b.console
    meta = b.meta()
    assert int(meta["ring"]) == RING_GPA and int(meta["ring_bytes"]) == RING_BYTES
    # 64 MiB RAM minus image, ring and firmware areas: most of it is allocatable.
    assert 40 << 20 <= int(meta["alloc_total"]) < RAM_MB << 20
    assert meta["unpriv"] == "42" and meta["ncpus"] == "1" and int(meta["llc"]) > 0


@pytest.mark.parametrize("accel", ACCELS)
def test_console_lines_are_whole_with_four_vcpus(tmp_path, selftest, accel):
    """Four vCPUs write 200 lines each from ring 3 at once: every line arrives whole."""
    b = boot(tmp_path, selftest, "run=st case=smp_lines", accel=accel, smp=4)
    assert b.fields("END")["status"] == "pass", b.console
    serial = b.console.split("\n[stderr]\n")[0]
    body = [ln for ln in serial.splitlines() if ln and not ln.startswith(("XT META", "XT END"))]
    check_whole_lines(body, vcpus=4, lines=200)


@pytest.mark.parametrize("accel", ACCELS)
@pytest.mark.parametrize("case,addr,err", [("smp_null", 0, 0x6), ("smp_kernel", 8, 0x0)])
def test_faults_on_a_second_vcpu_are_reported(tmp_path, selftest, accel, case, addr, err):
    """A page fault on vCPU 1 in ring 3, and in ring 0 inside its console gate (taken on
    its own TSS rsp0 stack), is reported like the boot vCPU's and ends the run."""
    b = boot(tmp_path, selftest, f"run=st case={case}", accel=accel, smp=2)
    m = re.fullmatch(r'"fault vector=(\d+) rip=0x[0-9a-f]+ addr=0x([0-9a-f]+) err=0x([0-9a-f]+)"',
                     b.fields("ERROR")["msg"])
    assert m and int(m.group(1)) == 14 and int(m.group(2), 16) == addr and int(m.group(3), 16) == err, b.console
    assert b.fields("END")["status"] == "fault" and b.returncode == EXIT_FAIL


def test_without_exit_device_a_pc_guest_halts(tmp_path, images):
    b = boot(tmp_path, images["dual"], QSORT.replace("iterations=20", "iterations=2"), machine="pc",
             accel="kvm" if KVM else "tcg", exit_device=False, timeout=20)
    assert b.fields("END")["status"] == "pass", b.console
    assert b.returncode is None, "QEMU should still run (guest halted), not exit"


@pytest.mark.parametrize("qemu", [QEMU, pytest.param(QEMU_TRIMMED, marks=pytest.mark.skipif(
    QEMU_TRIMMED is None or not KVM, reason="qemu-system-x86_64-microvm (KVM only) not installed or no KVM"))],
    ids=["full", "trimmed"])
def test_without_exit_device_a_microvm_guest_powers_off(tmp_path, images, qemu):
    """ACPI S5 through microvm's GED: QEMU exits 0 (the qemu backend's trimmed build has
    no isa-debug-exit); failing the run still shows in XT END."""
    accel = "kvm" if KVM else "tcg"
    b = boot(tmp_path, images["pvh"], QSORT.replace("iterations=20", "iterations=2"), accel=accel,
             exit_device=False, exits=True, qemu=qemu, timeout=20)
    assert b.fields("END")["status"] == "pass", b.console
    assert b.returncode == 0
    check_ring(b, 2)
    bad = boot(tmp_path, images["pvh"], "bench=qsort run=t1 iterations=x", accel=accel,
               exit_device=False, exits=True, qemu=qemu, timeout=20)
    assert bad.fields("END")["status"] == "badparam", bad.console
    assert bad.returncode == 0


def test_main_returning_is_reported(tmp_path, selftest):
    b = boot(tmp_path, selftest, "run=st case=return", accel="kvm" if KVM else "tcg")
    assert b.fields("ERROR")["msg"] == '"xt_main returned"', b.console
    assert b.fields("END")["status"] == "fail"
    assert b.returncode == EXIT_FAIL
