"""The host's TSC frequency as the native probe program calibrates it (against
CLOCK_MONOTONIC_RAW over ~50 ms, native/platform_linux.c). A backend measures it once and
passes it to its probes as freq_hz=, so that no run waits for a calibration of its own
and every run converts ticks with the same frequency. x86_64 only: an aarch64 counter
states its frequency (CNTFRQ_EL0), and the caller checks the architecture.
The frequency is kept for the boot (the cache directory's tsc-hz.json, keyed by the
kernel's boot_id and the program's build): an invariant TSC keeps its rate until the host
reboots, and each campaign would otherwise spend ~55 ms before its first run measuring it
again. Caveat: a cache that cannot be read or written only costs that measurement.
"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

from ..atomic import write_atomic
from ..images import cache_dir

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
        built = binary.stat()
        return f"{BOOT_ID.read_text().strip()} {binary.resolve()} {built.st_mtime_ns} {built.st_size}"
    except OSError:
        return None


def host_tsc_hz(binary: Path) -> int | None:
    """The frequency `binary` measured in this boot: the cached one, else measured now and kept."""
    key, cache = _key(binary), cache_dir() / CACHE_NAME
    try:
        kept = json.loads(cache.read_text())
        if key and kept.get("key") == key and isinstance(kept.get("hz"), int):
            return kept["hz"]
    except (OSError, ValueError, AttributeError):
        pass
    hz = measure_tsc_hz(binary)
    if key and hz:
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(cache, json.dumps({"key": key, "hz": hz}), durable=False)
        except OSError:
            pass
    return hz
