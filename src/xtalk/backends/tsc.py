"""The host's TSC frequency as the native probe program calibrates it (against
CLOCK_MONOTONIC_RAW over ~50 ms, native/platform_linux.c). A backend measures it once and
passes it to its probes as freq_hz=, so that no run waits for a calibration of its own
and every run converts ticks with the same frequency. x86_64 only: an aarch64 counter
states its frequency (CNTFRQ_EL0), and the caller checks the architecture.
The frequency is kept for the boot (cache.py: the cache directory's tsc-hz.json, keyed by
the kernel's boot_id and the program's build): an invariant TSC keeps its rate until the host
reboots, and each campaign would otherwise spend ~55 ms before its first run measuring it
again. Caveat: a cache that cannot be read or written only costs that measurement.
"""
from __future__ import annotations

import subprocess
from pathlib import Path

from ..cache import program_key, recall, remember

BOOT_ID = Path("/proc/sys/kernel/random/boot_id")
CACHE_NAME = "tsc-hz.json"


def measure_tsc_hz(binary: Path) -> int | None:
    """The frequency the native probe program `binary` measures now (None when it says none)."""
    out = subprocess.run([str(binary), "bench=cpu_spin", "run=freq", "role=measurer", "iterations=1"],
                         capture_output=True, text=True, timeout=30).stdout
    for token in out.split():
        if token.startswith("freq_hz="):
            return int(float(token.split("=", 1)[1]))
    return None


def _key(binary: Path) -> str | None:
    try:
        boot = BOOT_ID.read_text().strip()
    except OSError:
        return None
    build = program_key(binary)
    return f"{boot} {build}" if build else None


def host_tsc_hz(binary: Path) -> int | None:
    """The frequency `binary` measured in this boot: the kept one, else measured now and kept."""
    key = _key(binary)
    if key and isinstance(hz := recall(CACHE_NAME, key), int):
        return hz
    hz = measure_tsc_hz(binary)
    if key and hz:
        remember(CACHE_NAME, key, hz)
    return hz
