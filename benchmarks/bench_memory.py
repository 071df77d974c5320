"""Memory per sample bounded: goal peak RSS <= 200 MB for `xtalk run` and for `xtalk report`
of a 60 s native run of timer_latency at a 1 µs period, no stressors (issue 25: 2 to 3
million samples here, as many as the loaded 2-CPU host lets the probe take).

Each command runs as a child of a fresh Python that runs only it; its peak RSS is the
kernel's (getrusage of the children, ru_maxrss). Printed with each, to say where the
memory goes: the floor, the RSS of a process that has only imported what the command
imports (numpy, pyarrow, SciPy, Matplotlib), and the peak for the same campaign SHORT_S
long. What the long run adds over the short one is bounded, not per sample: the analysis
keeps a run's exact values while it has at most 2^20 samples (accum.EXACT_LIMIT: the
peak grows up to about a million samples, then stays), finalising and copying the
samples work 64 Ki rows at a time (docs/analysis.md).
The sustained-rate search is switched off (sustain = false): after the window it takes
10 000 interrupts per step at up to 10 ms periods, longer than the run's grace time.
XTALK_BENCH_MEMORY_S sets the run's length (a quick check: 5).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.common import report

GOAL_MB = 200
SHORT_S = 1  # the run whose peaks show the floor at (almost) no samples
RUN_IMPORTS = ("xtalk.cli.main, xtalk.analysis.pipeline, xtalk.report.terminal, xtalk.report.sections, "
               "xtalk.report.summary")  # what `xtalk run` has imported by its summary
REPORT_IMPORTS = "xtalk.cli.main, xtalk.report.build"
SPEC = """
name = "memory"
cpus = [0, 1]
[backend]
kind = "native"
[run]
duration_s = {duration}
repetitions = 1
[measurer]
bench = "timer_latency"
params = {{ period_us = 1, sustain = false }}
[matrix]
placement = ["solo"]
"""
# run by a fresh Python: the peak RSS (MB) of its one child, the command in its argv
PEAK = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)")
FLOOR = ("import {modules}\n"
         "print(next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmRSS')) / 1024)")


def peak_mb(*argv: str) -> float:
    """The peak RSS of `argv` run to its end (its output dropped), in MB."""
    out = subprocess.run([sys.executable, "-c", PEAK, *argv], check=True, capture_output=True, text=True)
    return float(out.stdout.split()[-1])


def floor_mb(modules: str) -> float:
    """The RSS of a fresh Python that imported `modules` and did nothing else, in MB."""
    out = subprocess.run([sys.executable, "-c", FLOOR.format(modules=modules)], check=True,
                         capture_output=True, text=True)
    return float(out.stdout.split()[-1])


def campaign(tmp: Path, duration: float) -> tuple[float, float, int]:
    """Peak RSS (MB) of `xtalk run` and of `xtalk report` of a run of `duration` s, and its samples."""
    xtalk = [sys.executable, "-m", "xtalk.cli.main"]
    spec, out = tmp / f"memory{duration:g}.toml", tmp / f"out{duration:g}"
    spec.write_text(SPEC.format(duration=duration))
    run = peak_mb(*xtalk, "run", str(spec), "--out", str(out))
    meta = json.loads(next(out.glob("memory-*/runs/solo-r1/meta.json")).read_text())
    print(f"  {duration:g} s run: {meta.get('sample_count')} samples, status {meta['status']}", flush=True)
    report_ = peak_mb(*xtalk, "report", "memory", "--out", str(out), "--dest", str(tmp / f"report{duration:g}"))
    return run, report_, int(meta.get("sample_count") or 0)


def main() -> int:
    duration = float(os.environ.get("XTALK_BENCH_MEMORY_S", "60"))
    with tempfile.TemporaryDirectory() as tmp:
        short = campaign(Path(tmp), SHORT_S)
        full = campaign(Path(tmp), duration)
    ok = True
    for i, (name, modules) in enumerate((("run", RUN_IMPORTS), ("report", REPORT_IMPORTS))):
        ok &= report(f"memory_{name}", full[i], GOAL_MB, "MB peak RSS")
        print(f"  floor: {floor_mb(modules):.0f} MB with its imports alone; {short[i]:.0f} MB for the {SHORT_S:g} s run "
              f"({short[2]} samples), {full[i] - short[i]:+.0f} MB for {full[2] - short[2]} samples more", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
