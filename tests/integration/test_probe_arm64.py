"""The arm64 probe guest under real QEMU: -M virt (TCG), GICv3 and GICv2.

Boots build/arm64/xtalk-probe.img (built here with `make -f mk/arm64.mk arm64`) as a
Linux Image with all guest RAM in a shared file that also holds the sample ring
(RAM starts at guest-physical 0x40000000 on virt: file offset = gpa - 0x40000000), and
checks the console protocol, the ring (read with xtalk.telemetry.ring, as the host
does), PSCI power-off, every bench of guests/lib/bench_list.h, bad parameters, and
the boot variants (EL2 entry with virtualization=on, -cpu max). A small platform
self-test image (C source below, linked against the platform objects) covers what the
benchmarks cannot reach on purpose: faults at EL0 and EL1 (NULL, privileged
instruction, stray SVC, execute-never data, write to .text, stack guard pages), the
virtual timer interrupt through GICv2 and GICv3 (with FP state kept across the IRQ),
xt_alloc and the ring region, and the EL0 round trip.
"""
from __future__ import annotations

import re
import shutil
import struct
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from xtalk.telemetry.ring import RingReader, init_ring

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build" / "arm64"
QEMU = shutil.which("qemu-system-aarch64")
CROSS = "aarch64-linux-gnu-"
pytestmark = [
    pytest.mark.skipif(QEMU is None, reason="qemu-system-aarch64 not installed"),
    pytest.mark.skipif(shutil.which(CROSS + "gcc") is None, reason="aarch64-linux-gnu-gcc not installed"),
]

RAM_MB = 128
RAM_BASE = 0x40000000                 # QEMU virt: guest RAM = file offset 0
RING_GPA = 0x41000000                 # the suggested ring address (guests/lib/arm64/mem.c)
RING_OFF = RING_GPA - RAM_BASE        # 16 MiB into the RAM file
RING_BYTES = 1 << 20
CAPACITY = (RING_BYTES - 64) // 32
HDR = struct.Struct("<8sIIQQQQQQ")
FREQ = 62_500_000                     # QEMU 7.2 virt: CNTFRQ_EL0 of the TCG generic timer


@dataclass
class Boot:
    console: str
    returncode: int
    first_line_ms: float
    ram: Path

    def lines(self, kind: str) -> list[str]:
        return [ln for ln in self.console.splitlines() if ln.startswith(f"XT {kind} ")]

    def fields(self, kind: str) -> dict[str, str]:
        lines = self.lines(kind)
        assert lines, f"no XT {kind} line in:\n{self.console}"
        return dict(re.findall(r'(\w+)=("[^"]*"|\S+)', lines[-1]))

    def meta(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for ln in self.lines("META"):
            out.update(re.findall(r"(\w+)=(\S+)", ln))
        return out


@pytest.fixture(scope="session")
def image() -> Path:
    r = subprocess.run(["make", "-f", "mk/arm64.mk", "arm64"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return BUILD / "xtalk-probe.img"


def boot(tmp_path: Path, kernel: Path, params: str, gic: int = 3, cpu: str = "cortex-a57",
         machine_extra: str = "", ring: bool = True, timeout: float = 60) -> Boot:
    ram = tmp_path / f"ram-{time.monotonic_ns()}"
    with open(ram, "wb") as f:
        f.truncate(RAM_MB << 20)
    with open(ram, "r+b") as f:
        hdr = bytearray(64)
        init_ring(hdr, 0, CAPACITY)
        f.seek(RING_OFF)
        f.write(hdr)
    if ring:
        params += f" ring_gpa={RING_GPA:#x} ring_bytes={RING_BYTES}"
    args = [QEMU, "-M", f"virt,gic-version={gic}{machine_extra}", "-cpu", cpu, "-accel", "tcg",
            "-m", f"{RAM_MB}M",
            "-object", f"memory-backend-file,id=mem,size={RAM_MB}M,mem-path={ram},share=on",
            "-machine", "memory-backend=mem",
            "-nodefaults", "-no-user-config", "-nographic", "-serial", "stdio",
            "-kernel", str(kernel), "-append", params]
    t0 = time.monotonic()
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = None
    out = b""
    try:
        deadline = t0 + timeout
        for line in iter(p.stdout.readline, b""):
            if first is None and line.startswith(b"XT "):
                first = (time.monotonic() - t0) * 1000
            out += line
            if time.monotonic() > deadline:
                break
        p.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    err = p.stderr.read().decode(errors="replace")
    console = out.decode(errors="replace").replace("\r", "")
    return Boot(console + ("\n[stderr]\n" + err if err.strip() else ""), p.returncode,
                first if first is not None else float("nan"), ram)


def check_ring(b: Boot, n: int, metrics: int = 1, zero_ok: frozenset[int] = frozenset()) -> None:
    """Reads the ring the way the host does (RingReader at the RAM-file offset). Values
    must be > 0 except in the metrics zero_ok (counts that may be 0)."""
    reader = RingReader(b.ram, offset=RING_OFF)
    try:
        write_seq, heartbeat, freq = reader.header()
        assert freq == FREQ and write_seq == n, b.console
        batch = reader.read()
        assert batch.lost == 0 and len(batch.records) == n
        rec = batch.records
        assert rec["seq"].tolist() == list(range(n))          # contiguous
        assert (rec["flags"] == 0).all()
        assert all(v > 0 or m in zero_ok for m, v in zip(rec["metric"].tolist(), rec["value"].tolist()))
        assert set(rec["metric"].tolist()) == set(range(metrics))
        ts = rec["t"].tolist()
        assert ts == sorted(ts) and heartbeat == ts[-1]
    finally:
        reader.close()


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


def test_no_ring_drains_over_console(tmp_path, image):
    b = boot(tmp_path, image, QSORT.replace("iterations=5", "iterations=3"), ring=False)
    assert_pass(b, samples=3)
    seqs = [int(dict(re.findall(r"(\w+)=(\S+)", ln))["seq"]) for ln in b.lines("SAMPLE")]
    assert seqs == [0, 1, 2]


def bench_names() -> list[str]:
    text = (ROOT / "guests" / "lib" / "bench_list.h").read_text()
    return re.findall(r"^XT_BENCH\((\w+)\)", text, re.M)


# Small sizes so that every bench ends quickly under TCG; stressors run as measurers
# with a short duration_s so that they end too.
BENCH_PARAMS = {
    "qsort": "size_kib=32 iterations=3",
    "pointer_chase": "size=256k steps=4096 iterations=3",
    "membw": "size=256k iterations=3",
    "hidden_latency": "duration_s=0.05",
    "cache_thrash": "size=256k duration_s=0.05",
    "cpu_spin": "spin=4096 duration_s=0.05",
    "timer_latency": "iterations=20 period_us=500 sustain_count=20 sustain_max_us=2000",
    "sched_metric": "interval_s=0.02 iterations=3",
    "vmexit_storm": "ops=50 duration_s=0.05",
    "irq_storm": "batch=20 duration_s=0.05",
}
ZERO_OK = {"timer_missed"}      # count metrics whose samples may be 0 (no interrupt lost)


@pytest.mark.parametrize("name", bench_names())
def test_every_bench_passes(tmp_path, image, name):
    params = BENCH_PARAMS.get(name, "iterations=3 duration_s=0.05")
    b = boot(tmp_path, image, f"bench={name} run=b-{name} role=measurer {params}")
    assert b.fields("BEGIN")["bench"] == name
    assert_pass(b)
    n = int(b.fields("END")["samples"])
    metrics = len(b.lines("METRIC"))
    assert metrics >= 1
    if name != "hidden_latency":                             # gaps: may legitimately be 0
        assert n >= metrics
    declared = [dict(re.findall(r"(\w+)=(\S+)", ln)) for ln in b.lines("METRIC")]
    zero_ok = frozenset(int(f["id"]) for f in declared if f["name"] in ZERO_OK)
    check_ring(b, n, metrics=metrics if n else 0, zero_ok=zero_ok)


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
#include "platform.h"

static void put(const char *s) { size_t n = 0; while (s[n]) n++; xt_console_write(s, n); }
static void putu(uint64_t v)
{
	char b[24]; int i = sizeof b;
	do { b[--i] = '0' + v % 10; v /= 10; } while (v);
	xt_console_write(b + i, sizeof b - i);
}
static bool is(const char *a, const char *b) { while (*a && *a == *b) a++, b++; return !*b && (!*a || *a == ' '); }
static const char *param(const char *key)
{
	const char *p = xt_cmdline();
	while (*p) {
		while (*p == ' ') p++;
		const char *k = key;
		while (*k && *p == *k) p++, k++;
		if (!*k && *p == '=') return p + 1;
		while (*p && *p != ' ') p++;
	}
	return "";
}
static void end(const char *status) { put("XT END run=st status="); put(status); put("\n"); xt_exit(0); }

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
	if (is(c, "alloc")) {
		size_t rb = 0;
		uint64_t ring = (uintptr_t)xt_ring_memory(&rb), total = 0, bad = 0;
		for (char *p; (p = xt_alloc(1 << 20)); total += 1 << 20) {
			uint64_t a = (uintptr_t)p;
			for (int i = 0; i < (1 << 20); i += 4096) bad += p[i] != 0;
			p[0] = 1;
			if ((a & 4095) || (a < ring + rb && a + (1 << 20) > ring) || a < 0x40200000) bad++;
		}
		put("XT META run=st ring="); putu(ring); put(" ring_bytes="); putu(rb);
		put(" alloc_total="); putu(total); put(" bad="); putu(bad);
		put(" unpriv="); putu(xt_run_unprivileged(u_double, (void *)21));
		put(" nested="); putu(xt_run_unprivileged(u_nested, (void *)21));
		put(" el0_ok="); putu(xt_run_unprivileged(u_el0_ok, 0));
		put(" ncpus="); putu(xt_ncpus()); put(" llc="); putu(xt_cache_bytes(0)); put("\n");
		end(bad ? "fail" : "pass");
	}
	end("badparam");
}
"""


@pytest.fixture(scope="session")
def selftest(image, tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("selftest")
    src = d / "selftest.c"
    src.write_text(SELFTEST_C)
    gcc = CROSS + "gcc"
    flags = ["-std=gnu11", "-O2", "-march=armv8-a", "-mno-outline-atomics",
             "-mbranch-protection=none", "-ffreestanding", "-fno-pic", "-no-pie",
             "-fno-stack-protector", "-fno-asynchronous-unwind-tables", "-nostdlib",
             "-fno-delete-null-pointer-checks", f"-I{ROOT / 'guests/lib'}"]
    subprocess.run([gcc, *flags, "-c", "-o", d / "selftest.o", src], check=True)
    obj = BUILD / "obj" / "guests" / "lib"
    neutral = [p for p in obj.glob("*.o") if p.name != "main.c.o"]
    subprocess.run([CROSS + "ar", "rcs", d / "libneutral.a", *neutral], check=True)
    elf = d / "selftest.elf"
    subprocess.run([gcc, *flags, "-static", "-Wl,--build-id=none", "-Wl,-z,max-page-size=0x1000",
                    "-Wl,--no-warn-rwx-segments", "-T", ROOT / "guests/lib/arm64/link.ld",
                    "-o", elf, d / "selftest.o", *sorted((obj / "arm64").glob("*.o")),
                    d / "libneutral.a", "-lgcc"], check=True)
    img = d / "selftest.img"
    subprocess.run([CROSS + "objcopy", "-O", "binary", elf, img], check=True)
    return img


def symbols(img: Path) -> dict[str, int]:
    out = subprocess.run([CROSS + "nm", img.with_suffix(".elf")], capture_output=True, text=True,
                         check=True).stdout
    return {m.group(2): int(m.group(1), 16) for m in re.finditer(r"^([0-9a-f]+) \w (\w+)$", out, re.M)}


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
        sym = symbols(selftest)[far]
        assert sym <= addr < sym + 4096, b.console
    else:
        assert addr == far, b.console
    assert b.fields("END")["status"] == "fault" and b.fields("END")["run"] == "st"
    assert b.returncode == 0


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
