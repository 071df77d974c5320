"""The host's TSC frequency as the native probe program calibrates it (against
CLOCK_MONOTONIC_RAW over ~50 ms, native/platform_linux.c). A backend measures it once and
passes it to its probes as freq_hz=, so that no run waits for a calibration of its own
and every run converts ticks with the same frequency. x86_64 only: an aarch64 counter
states its frequency (CNTFRQ_EL0), and the caller checks the architecture.
"""
from __future__ import annotations

import subprocess
from pathlib import Path


def host_tsc_hz(binary: Path) -> int | None:
    """The frequency the native probe program `binary` measures (None when it says none)."""
    out = subprocess.run([str(binary), "bench=cpu_spin", "run=freq", "role=measurer", "iterations=1"],
                         capture_output=True, text=True, timeout=30).stdout
    for token in out.split():
        if token.startswith("freq_hz="):
            return int(float(token.split("=", 1)[1]))
    return None
