"""Shared by the benchmarks: printing a result as a ratio to its goal, the backends this
host can run, and the spec text of the steal injector switched on and off ([paired])."""
from __future__ import annotations

import shutil
from collections.abc import Iterator

# a real-time host thread stealing `steal_us` (a matrix dimension) of the measured CPU every
# `period` µs, switched off and on every second inside each run; format with period=
PAIRED_STEAL = """
[[stressors]]
name = "steal"
bench = "steal"
host = true
params = {{ period_us = {period} }}
[paired]
off_s = 1
on_s = 1
"""


def report(name: str, value: float, goal: float, unit: str, higher_is_better: bool = False) -> bool:
    """Print `name: value unit (ratio of goal)` and return whether the goal is met."""
    ratio = value / goal if goal else (0.0 if value == 0 else float("inf"))  # a goal of none: 0 is met
    met = value >= goal if higher_is_better else value <= goal
    sense = ">=" if higher_is_better else "<="
    print(f"{name}: {value:.3g} {unit} ({ratio:.2f} of goal {sense} {goal:g} {unit}) "
          f"{'ok' if met else 'MISSED'}", flush=True)
    return met


def backends() -> Iterator[str]:
    """native, and qemu where QEMU is installed (else a line saying it was skipped)."""
    yield "native"
    if shutil.which("qemu-system-x86_64") is None:
        print("  qemu: skipped (qemu-system-x86_64 not installed)", flush=True)
    else:
        yield "qemu"
