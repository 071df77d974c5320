"""The arm64 probe guest under real QEMU: -M virt (TCG), GICv3 and GICv2.

Boots build/arm64/xtalk-probe.img (built here with `make -f mk/arm64.mk arm64`) as a
Linux Image with all guest RAM in a shared file that also holds the sample ring
(RAM starts at guest-physical 0x40000000 on virt: file offset = gpa - 0x40000000), and
checks the console protocol, the ring (read with xtalk.telemetry.ring, as the host
does), PSCI power-off, every bench of guests/lib/bench_list.h, bad parameters, the
boot variants (EL2 entry with virtualization=on, -cpu max) and the PL061 GPIO through
QEMU's trace (gpio_irq answering edges from outside, timer_latency's out_pin). A small platform
self-test image (C source below, linked against the platform objects) covers what the
benchmarks cannot reach on purpose: faults at EL0 and EL1 (NULL, privileged
instruction, stray SVC, execute-never data, write to .text, stack guard pages), the
virtual timer interrupt through GICv2 and GICv3 (with FP state kept across the IRQ),
xt_alloc and the ring region, the EL0 round trip, and several vCPUs (PSCI CPU_ON: faults
on a secondary, console lines kept whole under four writers). Booting, the console helpers,
the ring check and the every-bench checks are tests/framework/probe_boot.py's (shared with
test_probe_x86_64.py).
"""
from __future__ import annotations

import re
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from tests.framework.cli import wait_for
from xtalk.backends.qmp import Qmp
from tests.framework.probe_boot import (BENCH_PARAMS, RING_BYTES, ROOT, SELFTEST_PRELUDE, Boot, check_whole_lines,
                                          bench_names, bench_run_params, boot_qemu, build_selftest,
                                          check_bench_run, check_ring_reader, check_seed003, symbols)

BUILD = ROOT / "build" / "arm64"
QEMU = shutil.which("qemu-system-aarch64")
CROSS = "aarch64-linux-gnu-"
pytestmark = [
    pytest.mark.tcg,
    pytest.mark.skipif(QEMU is None, reason="qemu-system-aarch64 not installed"),
    pytest.mark.skipif(shutil.which(CROSS + "gcc") is None, reason="aarch64-linux-gnu-gcc not installed"),
]

RAM_MB = 128
RAM_BASE = 0x40000000                 # QEMU virt: guest RAM = file offset 0
RING_GPA = 0x41000000                 # the suggested ring address (guests/lib/arm64/mem.c)
RING_OFF = RING_GPA - RAM_BASE        # 16 MiB into the RAM file
FREQ = 62_500_000                     # QEMU 7.2 virt: CNTFRQ_EL0 of the TCG generic timer


@pytest.fixture(scope="session")
def image() -> Path:
    r = subprocess.run(["make", "-f", "mk/arm64.mk", "arm64"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return BUILD / "xtalk-probe.img"


def boot(tmp_path: Path, kernel: Path, params: str, gic: int = 3, cpu: str = "cortex-a57",
         machine_extra: str = "", ring: bool = True, timeout: float = 60, smp: int = 1) -> Boot:
    return boot_qemu(tmp_path, QEMU, kernel, params, machine=f"virt,gic-version={gic}{machine_extra}",
                     accel="tcg", ram_mb=RAM_MB, ring_gpa=RING_GPA, ring_offset=RING_OFF, ring=ring,
                     extra=["-cpu", cpu, "-smp", str(smp)], timeout=timeout)


def check_ring(b: Boot, n: int) -> None:
    check_ring_reader(b, n, offset=RING_OFF, freq=FREQ)


def assert_pass(b: Boot, samples: int | None = None) -> None:
    end = b.fields("END")
    assert end["status"] == "pass", b.console
    if samples is not None:
        assert end["samples"] == str(samples), b.console
    assert b.returncode == 0, b.console                        # PSCI SYSTEM_OFF
    assert b.console.rstrip().splitlines()[-1].startswith("XT END "), b.console


QSORT = "bench=qsort run=t1 role=measurer iterations=5 size_kib=64"


@pytest.mark.parametrize("gic", [3, 2])
def test_qsort_ring(tmp_path, image, gic):
    b = boot(tmp_path, image, QSORT, gic=gic)
    begin = b.fields("BEGIN")
    assert begin["arch"] == "arm64" and begin["platform"] == "virt", b.console
    assert begin["freq_hz"] == str(FREQ)                     # from CNTFRQ_EL0, not passed in
    assert_pass(b, samples=5)
    check_ring(b, 5)
    assert not b.lines("SAMPLE")                              # samples went to the shared ring
    meta = b.meta()
    assert int(meta["cpus"]) == 1 and int(meta["llc_bytes"]) > 0
    print(f"gicv{gic}: first XT line {b.first_line_ms:.0f} ms after QEMU start, "
          f"overhead_cycles={meta['overhead_cycles']} ticks at {FREQ} Hz (EL0, TCG)")
    assert b.first_line_ms < 5000


@pytest.mark.parametrize("cpu,extra", [("cortex-a57", ",virtualization=on"),   # entered at EL2
                                       ("max", ""), ("max", ",virtualization=on")])
def test_boot_variants(tmp_path, image, cpu, extra):
    b = boot(tmp_path, image, QSORT.replace("iterations=5", "iterations=2"), cpu=cpu,
             machine_extra=extra)
    assert_pass(b, samples=2)
    check_ring(b, 2)


@pytest.mark.parametrize("smp,extra", [(2, ""), (2, ",virtualization=on"), (1, "")])
def test_selftest_smp(tmp_path, image, smp, extra):
    """Secondary vCPUs through PSCI CPU_ON (HVC; SMC and entry at EL2 with
    virtualization=on): selftest's check_smp has each vCPU count itself in at EL0 with its
    own xt_cpu_index(); with one vCPU it is skipped."""
    b = boot(tmp_path, image, "bench=selftest run=t1 role=measurer", machine_extra=extra, smp=smp)
    assert_pass(b)
    meta = b.meta()
    assert meta["cpus"] == str(smp), b.console
    if smp == 1:
        assert meta["check_smp"] == "skip", b.console
        return
    assert meta["check_smp"] == "pass" and meta["smp_arrived"] == str(smp), b.console
    assert meta["smp_wrong_index"] == "0" and meta["check_timer"] == "pass", b.console


def test_no_ring_drains_over_console(tmp_path, image):
    b = boot(tmp_path, image, QSORT.replace("iterations=5", "iterations=3"), ring=False)
    assert_pass(b, samples=3)
    seqs = [int(dict(re.findall(r"(\w+)=(\S+)", ln))["seq"]) for ln in b.lines("SAMPLE")]
    assert seqs == [0, 1, 2]


# Benches that need several vCPUs: run on two (-smp 2, vcpus=2).
SMP_BENCH_PARAMS = {"lock": "vcpus=2 iterations=30 think_us=1000"}   # time for handovers both ways


@pytest.mark.parametrize("name", bench_names())
def test_every_bench_passes(tmp_path, image, name):
    b = boot(tmp_path, image, bench_run_params(name, {**BENCH_PARAMS, **SMP_BENCH_PARAMS}),
             smp=2 if name in SMP_BENCH_PARAMS else 1)
    assert_pass(b)
    check_bench_run(b, name, exit_pass=0, offset=RING_OFF, freq=FREQ)


def test_seed003_benches(tmp_path, image):
    check_seed003(lambda params: boot(tmp_path, image, params, ring=False), "arm64 tcg")


def test_new_benches_on_arm64(tmp_path, image):
    """vmexit_storm's three kinds, and a starved sched_metric fails its fairness check."""
    for kind in ("hvc", "mmio", "gate"):
        b = boot(tmp_path, image, f"bench=vmexit_storm run=va role=measurer kind={kind} ops=20 iterations=2")
        assert_pass(b, samples=2)
        assert b.meta()["kind"] == kind and b.meta()["kinds"] == "hvc,mmio,gate"
    b = boot(tmp_path, image, "bench=vmexit_storm run=va role=measurer ops=20 iterations=2",
             machine_extra=",virtualization=on")                # PSCI conduit: SMC
    assert_pass(b, samples=2)
    b = boot(tmp_path, image, "bench=sched_metric run=sm interval_s=0.02 iterations=2 starve=4")
    end = b.fields("END")
    assert end["status"] == "fail" and "thread 4 " in end["reason"], b.console
    counts = [int(c) for c in b.meta()["counts"].split(",")]
    assert max(counts[:4]) - min(counts[:4]) <= 1 and abs(2 * counts[4] - counts[0]) <= 3


@pytest.mark.parametrize("params,key", [
    ("bench=qsort run=bp size_kib=0", "size_kib"),
    ("bench=qsort run=bp nonsense=1", "nonsense"),
    ("bench=nosuch run=bp", "bench"),
    ("run=bp", "bench"),
])
def test_bad_parameter(tmp_path, image, params, key):
    b = boot(tmp_path, image, params)
    assert b.fields("ERROR").get("param") == key, b.console
    assert b.fields("END")["status"] == "badparam" and b.fields("END")["run"] == "bp"
    assert b.returncode == 0                                  # PSCI off carries no status


@pytest.mark.parametrize("extra,key", [
    (f"ring_gpa=0x40200000 ring_bytes={RING_BYTES}", "ring_gpa"),    # over the image
    (f"ring_gpa=0x40000000 ring_bytes={RING_BYTES}", "ring_gpa"),    # QEMU's boot stub
    ("ring_gpa=0x41000000", "ring_bytes"),                           # size missing
    (f"ring_gpa=0x41000010 ring_bytes={RING_BYTES}", "ring_gpa"),    # misaligned
    (f"ring_gpa=0x48000000 ring_bytes={RING_BYTES}", "ring_gpa"),    # beyond 128 MiB RAM
    (f"ring_gpa=0x44000000 ring_bytes={RING_BYTES}", "ring_gpa"),    # QEMU's DTB (RAM/2)
])
def test_bad_ring_parameters(tmp_path, image, extra, key):
    b = boot(tmp_path, image, f"{QSORT} {extra}", ring=False)
    assert b.fields("ERROR").get("param") == key, b.console
    assert b.fields("END")["status"] == "badparam"


# ---- platform self-test image -------------------------------------------------------

SELFTEST_C = r"""
/* Test-only xt_main: exercises the arm64 platform through platform.h (runs at EL1). */
""" + SELFTEST_PRELUDE + r"""

static volatile uint64_t fired;
static void on_timer(uint64_t now) { double x = (double)now; fired = (uint64_t)(x * 1.0); }

/* noipa: gcc would otherwise unroll the recursion into one 36 KiB frame that jumps
 * over the 4 KiB guard page (stack clash) */
__attribute__((noipa)) static int recurse(int n) { volatile char pad[4000]; pad[0] = (char)n; return recurse(n + 1) + pad[0]; }
static const volatile unsigned rodata_word = 0xd65f03c0;     /* readable at EL0 */
static unsigned data_code[2] = { 0xd65f03c0, 0 };            /* ret, in RW data */

static long u_null(void *a) { (void)a; *(volatile int *)0 = 1; return 0; }
static long u_priv(void *a) { (void)a; uint64_t v; __asm__ volatile("mrs %0, sctlr_el1" : "=r"(v)); return (long)v; }
static long u_svc(void *a) { (void)a; __asm__ volatile("svc #0"); return 0; }
static long u_exec(void *a) { (void)a; ((void (*)(void))data_code)(); return 0; }
static long u_text(void *a) { (void)a; *(volatile unsigned *)(uintptr_t)put = 0; return 0; }
static long u_ptw(void *a) { *(volatile uint64_t *)a = 0; return 0; }
static long u_stack(void *a) { (void)a; return recurse(0); }
static long u_kernel(void *a) { (void)a; xt_console_write((const char *)8, 4); return 0; }
static long u_double(void *a) { return (long)a * 2; }
static long u_nested(void *a) { return xt_run_unprivileged(u_double, a) + 1; }
static long u_el0_ok(void *a)
{
	(void)a;
	uint64_t f, c;
	__asm__ volatile("mrs %0, cntfrq_el0; mrs %1, cntvct_el0" : "=r"(f), "=r"(c));
	return f == xt_counter_hz() && c > 0 && rodata_word == 0xd65f03c0;
}
static long u_spin(void *a)
{
	uint64_t dl = *(uint64_t *)a, hz = xt_counter_hz();
	double x = 1.0, y = 0;
	long n = 0;
	while (!fired && xt_counter() < dl + 20 * hz) { y += x; x *= 1.0000001; n++; }
	/* the IRQ came in the middle of this loop: the FP state must have survived it */
	double expect = 0, xx = 1.0;
	for (long i = 0; i < n; i++) { expect += xx; xx *= 1.0000001; }
	return fired ? (expect == y ? 2 : 1) : 0;
}
static long u_arm_and_spin(void *a)
{
	uint64_t dl = *(uint64_t *)a;
	if (!xt_timer_oneshot(dl, on_timer)) return -1;
	return u_spin(a);
}

/* case=smp_lines: every vCPU writes 100 lines at EL1, then 100 at EL0, one
 * xt_console_write each: none may be torn by another vCPU's. */
static long u_lines(void *a) { for (unsigned i = 100; i < 200; i++) line((unsigned)(uintptr_t)a, i); return 0; }
static void smp_lines(void *a)
{
	for (unsigned i = 0; i < 100; i++) line((unsigned)(uintptr_t)a, i);
	xt_run_unprivileged(u_lines, a);
	__atomic_fetch_add(&lines_done, 1, __ATOMIC_RELEASE);
}
/* case=smp_null / smp_el1null / smp_kstack: the fault happens on vCPU 1 */
static void smp_fault(void *a)
{
	const char *c = a;
	if (is(c, "smp_null")) xt_run_unprivileged(u_null, 0);
	if (is(c, "smp_el1null")) { *(volatile int *)0 = 1; }
	if (is(c, "smp_kstack")) recurse(0);
}

static void alloc_extra(void)
{
	put(" unpriv="); putu(xt_run_unprivileged(u_double, (void *)21));
	put(" nested="); putu(xt_run_unprivileged(u_nested, (void *)21));
	put(" el0_ok="); putu(xt_run_unprivileged(u_el0_ok, 0));
}

void xt_main(void)
{
	const char *c = param("case");
	extern char arm64_pt_pool[];
	if (is(c, "null")) xt_run_unprivileged(u_null, 0);
	if (is(c, "priv")) xt_run_unprivileged(u_priv, 0);
	if (is(c, "svc")) xt_run_unprivileged(u_svc, 0);
	if (is(c, "exec")) xt_run_unprivileged(u_exec, 0);
	if (is(c, "text")) xt_run_unprivileged(u_text, 0);
	if (is(c, "pagetable")) xt_run_unprivileged(u_ptw, arm64_pt_pool);
	if (is(c, "stack")) xt_run_unprivileged(u_stack, 0);
	if (is(c, "kernel")) xt_run_unprivileged(u_kernel, 0);
	if (is(c, "el1null")) { *(volatile int *)0 = 1; }
	if (is(c, "kstack")) { int d = recurse(0); put("XT META run=st depth="); putu(d); }
	if (is(c, "return")) return;
	if (is(c, "timer_el0") || is(c, "timer_el1")) {
		uint64_t hz = xt_counter_hz(), dl = xt_counter() + hz / 1000;
		long r;
		if (is(c, "timer_el1")) {
			if (!xt_timer_oneshot(dl, on_timer)) end("fail");
			r = xt_run_unprivileged(u_spin, &dl);
		} else {
			r = xt_run_unprivileged(u_arm_and_spin, &dl);
		}
		put("XT META run=st timer_late="); putu(fired - dl);
		put(" fired="); putu(fired >= dl); put(" fp_ok="); putu(r == 2); put("\n");
		end(fired >= dl && r == 2 ? "pass" : "fail");
	}
	if (is(c, "alloc")) alloc_case(0x40200000, alloc_extra);    /* below: QEMU's boot area */
	if (is(c, "smp_lines")) {
		unsigned n = xt_ncpus(), started = 1;
		for (unsigned v = 1; v < n; v++) started += xt_cpu_start(v, smp_lines, (void *)(uintptr_t)v);
		smp_lines(0);
		uint64_t limit = xt_counter() + 10 * xt_counter_hz();
		while (lines_done < started && xt_counter() < limit) ;
		put("XT META run=st started="); putu(started); put(" done="); putu(lines_done); put("\n");
		end(started == n && lines_done == n ? "pass" : "fail");
	}
	if (is(c, "smp_null") || is(c, "smp_el1null") || is(c, "smp_kstack")) {
		if (!xt_cpu_start(1, smp_fault, (void *)c)) end("fail");
		uint64_t limit = xt_counter() + 10 * xt_counter_hz();
		while (xt_counter() < limit) ;
		end("fail");
	}
	end("badparam");
}
"""


@pytest.fixture(scope="session")
def selftest(image, tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("selftest")
    elf = build_selftest(d, SELFTEST_C, "arm64", BUILD, cross=CROSS,
                         flags=["-march=armv8-a", "-mno-outline-atomics", "-mbranch-protection=none"])
    img = d / "selftest.img"
    subprocess.run([CROSS + "objcopy", "-O", "binary", elf, img], check=True)
    return img


FAULT = re.compile(r'"fault vector=(\w+) el=(\w+) esr=0x([0-9a-f]+) ec=0x([0-9a-f]+) '
                   r'far=0x([0-9a-f]+) elr=0x([0-9a-f]+)"')


@pytest.mark.parametrize("case,el,ec,far", [
    ("null", "0", 0x24, 0),                  # EL0 write to the unmapped NULL page
    ("priv", "0", 0x00, 0),                  # EL0 reads SCTLR_EL1: undefined
    ("svc", "0", 0x15, 0),                   # svc #0 outside the return trampoline
    ("exec", "0", 0x20, "data_code"),        # EL0 jumps into RW data: execute-never
    ("text", "0", 0x24, "put"),              # EL0 writes .text: read-only
    ("pagetable", "0", 0x24, "arm64_pt_pool"),  # EL0 writes the page tables: EL1 only
    ("stack", "0", 0x24, "arm64_user_stack_guard"),   # EL0 stack overflow into its guard
    ("kernel", "1", 0x25, 8),                # EL1 reads a bad pointer handed in from EL0
    ("el1null", "1", 0x25, 0),               # EL1 NULL write
    ("kstack", "1", 0x25, "arm64_kstack_guard"),      # EL1 stack overflow: exception stack
])
def test_faults_are_reported(tmp_path, selftest, case, el, ec, far):
    b = boot(tmp_path, selftest, f"run=st case={case}")
    m = FAULT.fullmatch(b.fields("ERROR")["msg"])
    assert m, b.console
    assert m.group(1) == "sync" and m.group(2) == el and int(m.group(4), 16) == ec, b.console
    addr = int(m.group(5), 16)
    if isinstance(far, str):
        sym = symbols(selftest.with_suffix(".elf"), CROSS)[far]
        assert sym <= addr < sym + 4096, b.console
    else:
        assert addr == far, b.console
    assert b.fields("END")["status"] == "fault" and b.fields("END")["run"] == "st"
    assert b.returncode == 0


@pytest.mark.parametrize("case,el,ec", [("smp_null", "0", 0x24), ("smp_el1null", "1", 0x25),
                                       ("smp_kstack", "1", 0x25)])
def test_faults_on_a_secondary_vcpu(tmp_path, selftest, case, el, ec):
    """Faults on vCPU 1 are reported like the boot vCPU's: its own exception stack
    (TPIDR_EL1) and the guard page below its EL1 stack (smp_entry.S)."""
    b = boot(tmp_path, selftest, f"run=st case={case}", smp=2)
    m = FAULT.fullmatch(b.fields("ERROR")["msg"])
    assert m, b.console
    assert m.group(2) == el and int(m.group(4), 16) == ec, b.console
    if case == "smp_kstack":
        guard = symbols(selftest.with_suffix(".elf"), CROSS)["arm64_cpu_stacks"] + 4096 + 262144
        assert guard <= int(m.group(5), 16) < guard + 4096, b.console
    assert b.fields("END")["status"] == "fault" and b.returncode == 0


def test_console_lines_are_whole_with_four_vcpus(tmp_path, selftest):
    """Four vCPUs write 200 lines each, at EL1 and at EL0, at once: every line arrives whole."""
    b = boot(tmp_path, selftest, "run=st case=smp_lines", smp=4)
    assert b.fields("END")["status"] == "pass", b.console
    body = [ln for ln in b.console.splitlines() if ln and not ln.startswith(("XT META", "XT END"))]
    check_whole_lines(body, vcpus=4, lines=200)


@pytest.mark.parametrize("gic", [3, 2])
@pytest.mark.parametrize("where", ["el0", "el1"])
def test_virtual_timer(tmp_path, selftest, gic, where):
    b = boot(tmp_path, selftest, f"run=st case=timer_{where}", gic=gic)
    assert b.fields("END")["status"] == "pass", b.console
    meta = b.meta()
    assert meta["fired"] == "1" and meta["fp_ok"] == "1"
    print(f"gicv{gic} armed at {where}: handler {meta['timer_late']} ticks after the deadline")


@pytest.mark.parametrize("gic", [3, 2])
def test_virtual_timer_after_el2_entry(tmp_path, selftest, gic):
    """Entered at EL2 (virtualization=on): the drop to EL1 must leave the timer, the GIC
    CPU interface (ICC_SRE_EL2.Enable for GICv3) and PSCI (now via SMC) usable."""
    b = boot(tmp_path, selftest, "run=st case=timer_el0", gic=gic, machine_extra=",virtualization=on")
    assert b.fields("END")["status"] == "pass", b.console
    assert b.meta()["fp_ok"] == "1" and b.returncode == 0


def test_alloc_ring_and_unprivileged(tmp_path, selftest):
    b = boot(tmp_path, selftest, "run=st case=alloc")
    assert b.fields("END")["status"] == "pass", b.console
    meta = b.meta()
    assert int(meta["ring"]) == RING_GPA and int(meta["ring_bytes"]) == RING_BYTES
    # 128 MiB RAM minus boot area + image (~2.6 MiB), ring and DTB: most is allocatable.
    assert 100 << 20 <= int(meta["alloc_total"]) < RAM_MB << 20
    assert meta["unpriv"] == "42" and meta["nested"] == "43" and meta["el0_ok"] == "1"
    assert meta["ncpus"] == "1" and int(meta["llc"]) > 0


def test_main_returning_is_reported(tmp_path, selftest):
    b = boot(tmp_path, selftest, "run=st case=return")
    assert b.fields("ERROR")["msg"] == '"xt_main returned"', b.console
    assert b.fields("END")["status"] == "fail"


def test_gpio_irq_answers_each_edge_from_outside(tmp_path, image):
    """QEMU virt's power button (acpi=off) raises PL061 line 3 on every QMP
    system_powerdown: gpio_irq takes each rising edge as an interrupt and toggles line 0
    in its handler. QEMU's own trace of the PL061 shows the output following every input
    edge once the bench is armed, and the guest counts each (issue 28: the response a
    logic analyser times)."""
    monitor = tmp_path / "qmp.sock"
    qemu = subprocess.Popen([QEMU, "-M", "virt,acpi=off,gic-version=3", "-cpu", "cortex-a57", "-accel", "tcg",
                             "-m", f"{RAM_MB}M", "-nodefaults", "-no-user-config", "-nographic", "-serial", "stdio",
                             "-kernel", str(image), "-append", "bench=gpio_irq run=gp role=measurer duration_s=4",
                             "-qmp", f"unix:{monitor},server=on,wait=off",
                             "-trace", "pl061_set_output", "-trace", "pl061_input_change"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(qemu.stdout), daemon=True)
    reader.start()
    try:
        wait_for(lambda: any("ready=1" in line for line in lines), 30, "the bench armed (XT META ready=1)")
        with socket.socket(socket.AF_UNIX) as sock:
            sock.connect(str(monitor))
            qmp = Qmp(sock, 10)
            qmp.handshake()
            for _ in range(3):
                qmp.cmd("system_powerdown")
                time.sleep(0.4)  # the gpio-key holds the line 100 ms
        qemu.wait(60)
    finally:
        if qemu.poll() is None:
            qemu.kill()
            qemu.wait()
    reader.join(5)
    armed = next(i for i, line in enumerate(lines) if "ready=1" in line)
    after = [line for line in lines[armed:] if line.startswith(("pl061_input_change", "pl061_set_output"))]
    said = [("in" if "input 3 changed to 1" in x else "out " + x.split()[-1]) for x in after
            if "input 3 changed to 1" in x or "setting output 0" in x]
    assert said == ["in", "out 1", "in", "out 0", "in", "out 1"], "".join(lines)
    end = dict(re.findall(r"(\w+)=(\S+)", next(x for x in lines if x.startswith("XT END"))))
    assert end["status"] == "pass" and end["samples"] == "3", "".join(lines)
    assert "XT META run=gp answered=3\n" in lines, "".join(lines)


@pytest.mark.parametrize("out_pin", ["0", None])
def test_timer_latency_out_pin_marks_each_measured_deadline(image, out_pin):
    """timer_latency with out_pin (issue 28, a board with no GPIO loop): the handler of
    each measured deadline toggles PL061 line 0 first thing, so QEMU's PL061 trace shows
    one output change per sample, alternating, and none for the warmup interrupts; without
    out_pin the bench leaves the PL061 alone."""
    params = "bench=timer_latency run=tp role=measurer period_us=2000 iterations=50 warmup=5"
    r = subprocess.run([QEMU, "-M", "virt,acpi=off,gic-version=3", "-cpu", "cortex-a57", "-accel", "tcg",
                        "-m", f"{RAM_MB}M", "-nodefaults", "-no-user-config", "-nographic", "-serial", "stdio",
                        "-kernel", str(image), "-append", params + (f" out_pin={out_pin}" if out_pin else ""),
                        "-trace", "pl061_set_output"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    lines = r.stdout.splitlines()
    armed = next(i for i, line in enumerate(lines) if "ready=1" in line)   # after setup, before the warmup
    levels = [x.split()[-1] for x in lines[armed:] if x.startswith("pl061_set_output") and "setting output 0 " in x]
    meta = dict(kv for x in lines if x.startswith("XT META") for kv in re.findall(r"(\w+)=(\S+)", x))
    end = dict(re.findall(r"(\w+)=(\S+)", next(x for x in lines if x.startswith("XT END"))))
    assert end["status"] == "pass" and end["samples"] == meta["lat_n"] == "50", r.stdout
    assert meta["out_pin"] == (out_pin or "none"), r.stdout
    assert levels == (["1", "0"] * 25 if out_pin else []), r.stdout
    assert r.returncode == 0, r.stdout
