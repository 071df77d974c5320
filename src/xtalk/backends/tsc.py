"""The host's TSC frequency as the native probe program calibrates it (against
CLOCK_MONOTONIC_RAW over ~50 ms, native/platform_linux.c). A backend measures it once and
passes it to its probes as freq_hz=, so that no run waits for a calibration of its own
and every run converts ticks with the same frequency. x86_64 only: an aarch64 counter
states its frequency (CNTFRQ_EL0), and the caller checks the architecture.
The frequency is kept for the boot (cache.py: the cache directory's tsc-hz.json, keyed by
the kernel's boot_id and the program's build): an invariant TSC keeps its rate until the host
reboots, and each campaign would otherwise spend ~55 ms before its first run measuring it
again. A kept value is a claim to check before it converts every sample: it must be a whole
number of Hz between MIN_HZ and MAX_HZ and agree within AGREE with the kernel's own
calibration where the kernel states one (x86 Linux derives bogomips from the TSC: twice its
MHz); else it is measured again (a kept 1e9 on a 2.3 GHz host made every ns value 2.3 times
too large; -5, true or 1e29 failed every run; 1 hung them). A measurement is the truth: one
the kernel disagrees with is used, and measured again next time.
What a wrong frequency does: it scales every time value of every run by the same factor.
Within one campaign (one boot, one kept value) a slowdown, a share of stolen time or a
verdict between its configurations is unchanged, but every value in µs is off by it, a
deadline in µs is judged against scaled samples, and a campaign compared with one of
another boot or host (`xtalk compare`) differs by it in every time metric: a 1.5 % error
is a "different" verdict of +1.5 % from nothing where the noise floor is under 1.5 %, as
it often is. Hence AGREE is 0.1 %: 20 measurements on a loaded 2-CPU AMD EPYC VM
(2026-12-03) lay within 0.003 % of its kernel's 2596.136 MHz; a kept value off by more is
measured again (55 ms), never trusted.
Caveat: a cache that cannot be read or written only costs that measurement.
"""
from __future__ import annotations

import subprocess
from pathlib import Path

from ..cache import program_key, recall, remember

BOOT_ID = Path("/proc/sys/kernel/random/boot_id")
CPUINFO = Path("/proc/cpuinfo")
CACHE_NAME = "tsc-hz.json"
MIN_HZ, MAX_HZ = 100_000_000, 10_000_000_000  # no TSC ticks slower than 100 MHz or faster than 10 GHz
AGREE = 0.001  # a kept frequency within 0.1 % of the kernel's (module docstring)


def kernel_tsc_hz() -> float | None:
    """The TSC frequency the kernel calibrated, from the first CPU's bogomips (twice the
    TSC's MHz where the delay loop uses the TSC, as on x86 Linux); None where not stated."""
    try:
        with open(CPUINFO) as f:
            for line in f:
                if line.startswith("bogomips"):
                    return float(line.split(":", 1)[1]) / 2 * 1e6
    except (OSError, ValueError):
        return None
    return None


def plausible(hz: object) -> bool:
    """A frequency that may convert samples: a whole number of Hz in range, agreeing with the
    kernel's where it states one."""
    if not isinstance(hz, int) or isinstance(hz, bool) or not MIN_HZ <= hz <= MAX_HZ:
        return False
    kernel = kernel_tsc_hz()
    return kernel is None or abs(hz / kernel - 1) <= AGREE


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
    if key and plausible(hz := recall(CACHE_NAME, key)):
        return hz
    hz = measure_tsc_hz(binary)
    if key and hz and MIN_HZ <= hz <= MAX_HZ:
        remember(CACHE_NAME, key, hz)
    return hz
