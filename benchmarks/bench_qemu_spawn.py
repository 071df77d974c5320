"""Spawn-to-first-sample of the microvm probe guest: goal <= 150 ms (issues 3 and 4).

Times, over 10 boots, from the qemu backend's start() call (QEMU spawned paused, QMP
connected, vCPU pinned and verified, continued) to the first sample in the shared-memory
ring, and to the guest's first console line. KVM where /dev/kvm works, else TCG (said).
"""
from __future__ import annotations

import os
import select
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.common import report
from xtalk.backends.qemu import QemuBackend
from xtalk.plan import plan
from xtalk.spec import parse_campaign

SPEC = """
name = "spawn"
cpus = [0]
[backend]
kind = "qemu"
[measurer]
bench = "cpu_spin"
iterations = 100000
params = { spin = 1 }
"""
BOOTS = 10


def one_boot(backend: QemuBackend, run, run_dir: Path) -> tuple[float, float]:
    backend.prepare(run, run_dir)
    t0 = time.perf_counter()
    handle = backend.start(run.measurer, run)
    first_line = first_sample = None
    try:
        while first_sample is None or first_line is None:
            if time.perf_counter() - t0 > 10:
                raise RuntimeError("no sample within 10 s")
            if first_line is None and select.select([handle.console_fd], [], [], 0)[0]:
                if os.read(handle.console_fd, 4096):
                    first_line = time.perf_counter() - t0
            if first_sample is None and handle.ring.header()[0] > 0:
                first_sample = time.perf_counter() - t0
    finally:
        backend.stop(handle)
        handle.ring.close()
        backend.cleanup(run)
    return first_sample, first_line


def main() -> int:
    spec, raw = parse_campaign(SPEC, "bench")
    (run,) = plan(spec, raw)
    backend = QemuBackend({})
    samples, lines = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(BOOTS):
            s, line = one_boot(backend, run, Path(tmp))
            samples.append(s * 1e3)
            lines.append(line * 1e3)
    print(f"  accel={backend.accel} ({backend.accel_reason}); first console line median "
          f"{statistics.median(lines):.1f} ms; first sample min/median/max "
          f"{min(samples):.1f}/{statistics.median(samples):.1f}/{max(samples):.1f} ms", flush=True)
    return 0 if report("qemu_spawn_to_first_sample", statistics.median(samples), 150, "ms") else 1


if __name__ == "__main__":
    raise SystemExit(main())
