"""What the x86-64 and arm64 probe-guest tests (test_probe_x86_64.py, test_probe_arm64.py)
share: booting a probe image under QEMU with all guest RAM in a shared file that also
holds the sample ring, the console protocol helpers (class Boot), the host-side ring
check (RingReader at the ring's file offset), the every-bench parameters and checks, and
the platform self-test image's common C prelude and build steps. Machine, accelerator,
ring address, counter frequency and exit status stay with each architecture's file.
"""
from __future__ import annotations

import re
import statistics
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.framework.repo import ROOT
from xtalk.telemetry.ring import RingReader, init_ring

RING_BYTES = 1 << 20
CAPACITY = (RING_BYTES - 64) // 32


@dataclass
class Boot:
    console: str
    returncode: int | None  # None: still running after XT END (exits=False)
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


def boot_qemu(tmp_path: Path, qemu: str, kernel: Path, params: str, *, machine: str, accel: str,
              ram_mb: int, ring_gpa: int, ring_offset: int, ring: bool = True,
              extra: Sequence[str] = (), exits: bool = True, timeout: float = 30) -> Boot:
    """Boots kernel with params (plus ring_gpa=/ring_bytes= when ring) and ram_mb of RAM in
    a fresh file whose ring header at ring_offset is initialised. exits: QEMU ends by
    itself (exit device, PSCI off) and is waited for up to timeout; otherwise the guest
    is expected to halt: wait for XT END, then returncode None while QEMU still runs."""
    ram = tmp_path / f"ram-{time.monotonic_ns()}"
    with open(ram, "wb") as f:
        f.truncate(ram_mb << 20)
        hdr = bytearray(64)
        init_ring(hdr, 0, CAPACITY)
        f.seek(ring_offset)
        f.write(hdr)
    if ring:
        params += f" ring_gpa={ring_gpa:#x} ring_bytes={RING_BYTES}"
    args = [qemu, "-M", machine, "-accel", accel, "-m", f"{ram_mb}M",
            "-object", f"memory-backend-file,id=mem,size={ram_mb}M,mem-path={ram},share=on",
            "-machine", "memory-backend=mem",
            "-nodefaults", "-no-user-config", "-nographic", "-serial", "stdio",
            "-kernel", str(kernel), "-append", params, *extra]
    t0 = time.monotonic()
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out: list[bytes] = []
    first: list[float] = []
    ended = threading.Event()

    def reader() -> None:
        for line in iter(p.stdout.readline, b""):
            if not first and line.startswith(b"XT "):
                first.append((time.monotonic() - t0) * 1000)
            if line.startswith(b"XT END"):
                ended.set()
            out.append(line)

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    rc = None
    try:
        if exits:
            rc = p.wait(timeout=timeout)
        elif ended.wait(timeout):
            time.sleep(0.5)  # the guest should now halt, not exit
            rc = p.poll()
    except subprocess.TimeoutExpired:
        pass
    finally:
        if p.poll() is None:
            p.kill()
        p.wait()
    t.join(timeout=5)
    err = p.stderr.read().decode(errors="replace")
    console = b"".join(out).decode(errors="replace").replace("\r", "")
    return Boot(console + ("\n[stderr]\n" + err if err.strip() else ""), rc,
                first[0] if first else float("nan"), ram)


def check_ring_reader(b: Boot, n: int, *, offset: int, freq: int) -> None:
    """Reads the ring the way the host does (RingReader at the RAM-file offset): n
    samples, contiguous seqs, exactly the declared metrics present, values > 0 except
    the metrics in ZERO_OK, times in order, heartbeat = the last sample's time. A bench run
    on several vCPUs (its METRIC lines say vcpu=) has several writers: each vCPU's own
    metrics are in time order, and the heartbeat is one of the samples' times (the writers
    publish in seq order but set the heartbeat after it, so the last to set it may be an
    earlier seq's: docs/protocol.md section 3)."""
    names = {int(f["id"]): f["name"] for f in
             (dict(re.findall(r"(\w+)=(\S+)", ln)) for ln in b.lines("METRIC"))}
    reader = RingReader(b.ram, offset=offset)
    try:
        write_seq, heartbeat, ring_freq = reader.header()
        assert write_seq == n and ring_freq == freq, b.console
        batch = reader.read()
        assert batch.lost == 0 and len(batch.records) == n
        rec = batch.records
        assert rec["seq"].tolist() == list(range(n))          # contiguous
        assert (rec["flags"] == 0).all()
        if n:
            assert set(rec["metric"].tolist()) == set(names), b.console
            ts = rec["t"].tolist()
            if any("vcpu=" in line for line in b.lines("METRIC")):
                for metric in names:
                    own = [t for t, m in zip(ts, rec["metric"].tolist()) if m == metric]
                    assert own == sorted(own), names[metric]
                assert heartbeat in ts
            else:
                assert ts == sorted(ts) and heartbeat == ts[-1]
        for m, v in zip(rec["metric"].tolist(), rec["value"].tolist()):
            assert v > 0 or names[m] in ZERO_OK, (names[m], v)
    finally:
        reader.close()


# ---- every bench of guests/lib/bench_list.h -------------------------------------------

def bench_names() -> list[str]:
    text = (ROOT / "guests" / "lib" / "bench_list.h").read_text()
    return re.findall(r"^XT_BENCH\((\w+)\)", text, re.M)


# Small sizes so that every bench ends quickly under TCG; stressors run as measurers
# with a short duration_s so that they end too. An architecture adds its own.
BENCH_PARAMS = {
    "qsort": "size_kib=32 iterations=3",
    "pointer_chase": "size=256k steps=4096 iterations=3",
    "cache_probe": "mode=points sizes=8192,65536 hi=1m stream=256k line=64k iterations=3",  # every metric
    "membw": "size=256k iterations=3",
    "hidden_latency": "duration_s=0.05",
    "gpio_irq": "duration_s=0.05",  # no stimulus here: no sample (test_probe_arm64 drives its line)
    "cache_thrash": "size=256k duration_s=0.05",
    "cpu_spin": "spin=4096 duration_s=0.05",
    "timer_latency": "iterations=20 period_us=500 sustain=1 sustain_count=20 sustain_max_us=2000",
    "sched_metric": "interval_s=0.02 iterations=3",
    "vmexit_storm": "ops=50 duration_s=0.05",
    "irq_storm": "batch=20 duration_s=0.05",
    "dhrystone": "loops=2000 iterations=3",
    "cachebench": "size_kib=64 sample_kib=256 iterations=3",
    "stream": "size=768k iterations=3",
}
DEFAULT_BENCH_PARAMS = "iterations=3 duration_s=0.05"
ZERO_OK = {"timer_missed"}      # count metrics whose samples may be 0 (no interrupt lost)


def bench_run_params(name: str, params: dict[str, str]) -> str:
    """The workload of test_every_bench_passes for bench name (params: BENCH_PARAMS and
    the architecture's additions)."""
    return f"bench={name} run=b-{name} role=measurer {params.get(name, DEFAULT_BENCH_PARAMS)}"


def check_bench_run(b: Boot, name: str, *, exit_pass: int, offset: int, freq: int) -> None:
    """test_every_bench_passes: the bench ran, passed (QEMU's exit status exit_pass), wrote
    at least one sample per declared metric (hidden_latency and an undriven gpio_irq may
    have none; gpio_irq fails where the platform has no GPIO, saying so) and the ring
    holds exactly what END counted."""
    assert b.fields("BEGIN")["bench"] == name, b.console
    end = b.fields("END")
    if name == "gpio_irq" and end["status"] == "fail":
        assert "the platform has no GPIO interrupt" in b.console and b.fields("BEGIN")["arch"] != "arm64", b.console
        return
    assert end["status"] == "pass" and b.returncode == exit_pass, b.console
    n = int(end["samples"])
    metrics = len(b.lines("METRIC"))
    assert metrics >= 1, b.console
    if name not in ("hidden_latency", "gpio_irq"):           # gaps, edges: may legitimately be 0
        assert n >= metrics, b.console
    check_ring_reader(b, n, offset=offset, freq=freq)


# ---- seed 003's benches: plausible values on every target ------------------------------

SEED003 = {"dhrystone": "loops=2000 iterations=5", "cachebench": "size_kib=16 sample_kib=1024 iterations=5",
           "stream": "size=3m iterations=5"}


def native_dhrystone_checksum(loops: int) -> str:
    """The checksum of the state `loops` rounds leave, from the native program: every
    target must do exactly the same work."""
    subprocess.run(["make", "-s", "-C", str(ROOT), "native"], check=True, capture_output=True)
    out = subprocess.run([str(ROOT / "build/native/xtalk-bench"), "bench=dhrystone", f"loops={loops}",
                          "iterations=1"], capture_output=True, text=True, check=True).stdout
    return re.search(r"checksum=(\S+)", out).group(1)


def drained(b: Boot) -> dict[str, list[int]]:
    """metric name -> the values of a boot's XT SAMPLE lines (a boot without a ring)."""
    names = {f["id"]: f["name"] for f in (dict(re.findall(r"(\w+)=(\S+)", ln)) for ln in b.lines("METRIC"))}
    out: dict[str, list[int]] = {n: [] for n in names.values()}
    for f in (dict(re.findall(r"(\w+)=(\S+)", ln)) for ln in b.lines("SAMPLE")):
        out[names[f["metric"]]].append(int(f["value"]))
    return out


def check_seed003(boot: Callable[[str], Boot], label: str) -> None:
    """dhrystone, cachebench and stream in one guest each (boot(params) boots one without a
    ring): they pass, every rate sample is > 0, DMIPS are iterations/s over 1757 (two
    loops, so within 2x), and dhrystone left the state the native program leaves."""
    reference = native_dhrystone_checksum(2000)
    for bench, params in SEED003.items():
        b = boot(f"bench={bench} run=s3 {params}")
        assert b.fields("END")["status"] == "pass", b.console
        values = drained(b)
        assert values and all(len(v) == 5 and min(v) > 0 for v in values.values()), values
        print(f"{label} {bench}: " + ", ".join(f"{k} median {statistics.median(v):,.0f}" for k, v in values.items()))
        if bench == "dhrystone":
            assert b.meta()["checksum"] == reference, b.console
            ratio = statistics.median(values["dhrystone_ips"]) / statistics.median(values["dhrystone_dmips"])
            assert 1757 / 2 < ratio < 1757 * 2, ratio


# ---- platform self-test image ----------------------------------------------------------

# The start of both self-test sources: console output, the case= parameter, END, case=alloc.
SELFTEST_PRELUDE = r"""
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

/* case=smp_lines (both arches): vCPU v's line i, "XT LINE v=VV i=III " and 40 letters, with
 * one xt_console_write: none may be torn by another vCPU's. */
static volatile unsigned lines_done;
static void line(unsigned v, unsigned i)
{
	char b[80] = "XT LINE v=", *p = b + 10;
	*p++ = '0' + v / 10; *p++ = '0' + v % 10; *p++ = ' '; *p++ = 'i'; *p++ = '=';
	*p++ = '0' + i / 100; *p++ = '0' + i / 10 % 10; *p++ = '0' + i % 10; *p++ = ' ';
	for (int k = 0; k < 40; k++) *p++ = 'a' + (v + k) % 26;
	*p++ = '\n';
	xt_console_write(b, (size_t)(p - b));
}

/* case=alloc: xt_alloc 1 MiB blocks until it fails; a block that is not zeroed, not page
 * aligned, over the ring or below low is bad. One META line (extra() adds the arch's
 * fields), then END. */
static void alloc_case(uint64_t low, void (*extra)(void))
{
	size_t rb = 0;
	uint64_t ring = (uintptr_t)xt_ring_memory(&rb), total = 0, bad = 0;
	for (char *p; (p = xt_alloc(1 << 20)); total += 1 << 20) {
		uint64_t a = (uintptr_t)p;
		for (int i = 0; i < (1 << 20); i += 4096) bad += p[i] != 0;
		p[0] = 1;
		if ((a & 4095) || (a < ring + rb && a + (1 << 20) > ring) || a < low) bad++;
	}
	put("XT META run=st ring="); putu(ring); put(" ring_bytes="); putu(rb);
	put(" alloc_total="); putu(total); put(" bad="); putu(bad);
	extra();
	put(" ncpus="); putu(xt_ncpus()); put(" llc="); putu(xt_cache_bytes(0)); put("\n");
	end(bad ? "fail" : "pass");
}
"""
SELFTEST_FLAGS = ["-std=gnu11", "-O2", "-ffreestanding", "-fno-pic", "-no-pie",
                  "-fno-stack-protector", "-fno-asynchronous-unwind-tables", "-nostdlib",
                  "-fno-delete-null-pointer-checks", f"-I{ROOT / 'guests/lib'}"]


def build_selftest(d: Path, source: str, arch: str, build: Path, *, cross: str = "",
                   flags: Sequence[str] = (), ld_flags: Sequence[str] = ()) -> Path:
    """Compiles source (a test-only xt_main) and links it as a probe guest ELF in d: the
    arch's platform objects (guests/lib/<arch> and guests/lib/plat) and the neutral library
    of build/<arch> (built already), the arch's link.ld. flags go with SELFTEST_FLAGS, ld_flags to the link only."""
    src = d / "selftest.c"
    src.write_text(source)
    gcc = cross + "gcc"
    cflags = [*SELFTEST_FLAGS, *flags]
    subprocess.run([gcc, *cflags, "-c", "-o", d / "selftest.o", src], check=True)
    obj = build / "obj" / "guests" / "lib"
    neutral = [p for p in obj.glob("*.o") if p.name != "main.c.o"]
    subprocess.run([cross + "ar", "rcs", d / "libneutral.a", *neutral], check=True)
    elf = d / "selftest.elf"
    subprocess.run([gcc, *cflags, "-static", "-Wl,--build-id=none", "-Wl,-z,max-page-size=0x1000",
                    "-Wl,--no-warn-rwx-segments", *ld_flags,
                    "-T", ROOT / f"guests/lib/{arch}/link.ld", "-o", elf, d / "selftest.o",
                    *sorted((obj / arch).glob("*.o")), *sorted((obj / "plat").glob("*.o")), d / "libneutral.a", "-lgcc"], check=True)
    return elf


def symbols(elf: Path, cross: str = "") -> dict[str, int]:
    """name -> address of elf's symbols (nm)."""
    out = subprocess.run([cross + "nm", elf], capture_output=True, text=True, check=True).stdout
    return {m.group(2): int(m.group(1), 16) for m in re.finditer(r"^([0-9a-f]+) \w (\w+)$", out, re.M)}


def check_whole_lines(body: list[str], vcpus: int, lines: int) -> None:
    """case=smp_lines' console (SELFTEST_PRELUDE's line()): every vCPU's every line, whole."""
    seen = set()
    for ln in body:
        m = re.fullmatch(r"XT LINE v=(\d\d) i=(\d{3}) ([a-z]{40})", ln)
        assert m, ln
        v = int(m.group(1))
        assert m.group(3) == "".join(chr(97 + (v + k) % 26) for k in range(40)), ln
        seen.add((v, int(m.group(2))))
    assert seen == {(v, i) for v in range(vcpus) for i in range(lines)} and len(body) == vcpus * lines, len(body)
