"""Memory per sample bounded: goal peak RSS <= 200 MB for `xtalk run` and for `xtalk report`
of a 60 s native run of timer_latency at a 1 µs period, no stressors (issue 25: 2 to 3
million samples here, as many as the loaded 2-CPU host lets the probe take), and a peak
that does not grow with the samples beyond a fixed chunk (issue 46).

Each command runs as a child of a fresh Python that runs only it; its peak RSS is the
kernel's (getrusage of the children, ru_maxrss). Printed for each command:
* the peak of the long run against the goal;
* the growth: its peak minus that of the same campaign SHORT_S long (some 30 000 samples),
  against CHUNK_MB, the fixed chunk the samples may add: a run's exact values while it has
  at most 2^20 samples (accum.EXACT_LIMIT, 16 MB with their times; a run known to be
  longer keeps none) and one batch's buffers of the passes over the samples (the scan's
  2^18 rows, the copy's 64 Ki, docs/analysis.md);
* where the peak goes: the floor, the RSS of a fresh Python that only imports every module
  the command imported (listed as it exits), and the peak's part beyond it (its data, the
  code it ran). The floor is what lazy imports lower; the part beyond it is the command's.
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
from dataclasses import dataclass
from pathlib import Path

from benchmarks.common import report

GOAL_MB = 200
CHUNK_MB = 32  # the exact values of a run up to 2^20 samples (16 MB) and a batch's buffers (~16 MB)
SHORT_S = 1  # the run whose peaks show the floor at (almost) no samples
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
# `xtalk ARGV[2:]` as the xtalk command runs it (cli.main.entry), the modules it imported written to ARGV[1] as it exits
XTALK = ("import atexit, sys; modules = sys.argv[1]; sys.argv = ['xtalk', *sys.argv[2:]]; "
         "atexit.register(lambda: open(modules, 'w').write('\\n'.join(sys.modules))); "
         "from xtalk.cli.main import entry; entry()")
# the RSS (MB) of a fresh Python that imported the modules listed in ARGV[1] (those that import alone)
FLOOR = ("import importlib, sys\n"
         "for name in open(sys.argv[1]).read().split():\n"
         "    try:\n"
         "        importlib.import_module(name)\n"
         "    except Exception:\n"
         "        pass\n"
         "print(next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmRSS')) / 1024)")


def peak_mb(*argv: str) -> float:
    """The peak RSS of `argv` run to its end (its output dropped), in MB."""
    out = subprocess.run([sys.executable, "-c", PEAK, *argv], check=True, capture_output=True, text=True)
    return float(out.stdout.split()[-1])


def floor_mb(modules: Path) -> float:
    """The RSS of a fresh Python that imported the modules listed in `modules` and did nothing else, in MB."""
    out = subprocess.run([sys.executable, "-c", FLOOR, str(modules)], check=True, capture_output=True, text=True)
    return float(out.stdout.split()[-1])


@dataclass
class Peaks:
    samples: int
    mb: dict[str, float]     # command -> peak RSS
    floor: dict[str, float]  # command -> RSS of its imports alone


def campaign(tmp: Path, duration: float) -> Peaks:
    """Peak RSS (MB) of `xtalk run` and of `xtalk report` of a run of `duration` s, their floors, its samples."""
    spec, out = tmp / f"memory{duration:g}.toml", tmp / f"out{duration:g}"
    spec.write_text(SPEC.format(duration=duration))
    argv = {"run": ["run", str(spec), "--out", str(out), "--wait"],  # --wait: behind a campaign on the CPUs
            "report": ["report", "memory", "--out", str(out), "--dest", str(tmp / f"report{duration:g}")]}
    peaks = Peaks(0, {}, {})
    for command, args in argv.items():
        modules = tmp / f"modules-{command}{duration:g}.txt"
        peaks.mb[command] = peak_mb(sys.executable, "-c", XTALK, str(modules), *args)
        peaks.floor[command] = floor_mb(modules)
        if command == "run":
            meta = json.loads(next(out.glob("memory-*/runs/solo-r1/meta.json")).read_text())
            peaks.samples = int(meta.get("sample_count") or 0)
            print(f"  {duration:g} s run: {peaks.samples} samples, status {meta['status']}", flush=True)
    return peaks


def main() -> int:
    duration = float(os.environ.get("XTALK_BENCH_MEMORY_S", "60"))
    with tempfile.TemporaryDirectory() as tmp:
        short = campaign(Path(tmp), SHORT_S)
        full = campaign(Path(tmp), duration)
    ok = True
    for name in ("run", "report"):
        ok &= report(f"memory_{name}", full.mb[name], GOAL_MB, "MB peak RSS")
        ok &= report(f"memory_{name}_growth", full.mb[name] - short.mb[name], CHUNK_MB, "MB")
        print(f"  {short.mb[name]:.0f} MB for the {SHORT_S:g} s run ({short.samples} samples), {full.mb[name]:.0f} MB "
              f"for the {duration:g} s run ({full.samples} samples): {full.mb[name] - short.mb[name]:+.0f} MB for "
              f"{full.samples - short.samples} samples more", flush=True)
        print(f"  floor: {full.floor[name]:.0f} MB with the modules it imported alone; "
              f"{full.mb[name] - full.floor[name]:+.0f} MB beyond them", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
