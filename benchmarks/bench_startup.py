"""Start-up: goals `xtalk --help` <= 100 ms, `xtalk list` <= 200 ms and `xtalk spec check
experiments/quickstart.toml` <= 300 ms, each the median wall time of a whole process over
RUNS runs (issue 46: a command imports only what it uses). A 1-run native `xtalk run`
(RUN_S measured) is timed the same way, for information: what a campaign costs around its
one measurement. The interpreter's own start (`python -c pass`) is printed as the floor.
`xtalk list` reads a results directory holding one campaign of one run (the first timed
`xtalk run`'s); `spec check` finds no earlier campaign of the spec (an empty --out).
Caveat: the times are wall times on a shared host; the load average is printed with them.
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.common import report

RUNS = 15
RUN_S = 1.0
ROOT = Path(__file__).resolve().parent.parent
SPEC = f"""
name = "startup"
cpus = [0, 1]
[backend]
kind = "native"
[run]
duration_s = {RUN_S}
repetitions = 1
[measurer]
bench = "qsort"
[matrix]
placement = ["solo"]
"""


def xtalk_command() -> list[str]:
    """The installed `xtalk` script next to this Python, as a user runs it (else -m)."""
    script = Path(sys.executable).parent / "xtalk"
    return [str(script)] if script.exists() else [sys.executable, "-m", "xtalk.cli.main"]


def median_s(argv: list[str] | Callable[[int], list[str]]) -> float:
    """The median wall time of RUNS runs of `argv` (or of argv(i) for the i-th), each to its
    end, its output dropped; each must succeed."""
    times = []
    for i in range(RUNS):
        start = time.perf_counter()
        subprocess.run(argv(i) if callable(argv) else argv, check=True, cwd=ROOT, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    xtalk = xtalk_command()
    print(f"  load average {os.getloadavg()[0]:.2f}; floor: python -c pass "
          f"{median_s([sys.executable, '-c', 'pass']) * 1000:.0f} ms", flush=True)
    ok = report("startup_help", median_s([*xtalk, "--help"]) * 1000, 100, "ms median")
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "startup.toml"
        spec.write_text(SPEC)
        run_s = median_s(lambda i: [*xtalk, "run", str(spec), "--out", f"{tmp}/out{i}"])
        ok &= report("startup_list", median_s([*xtalk, "list", "--out", f"{tmp}/out0"]) * 1000, 200, "ms median")
        ok &= report("startup_spec_check", median_s([*xtalk, "spec", "check", "experiments/quickstart.toml",
                                                     "--out", str(Path(tmp) / "empty")]) * 1000, 300, "ms median")
    print(f"  native 1-run `xtalk run` ({RUN_S:g} s measured): {run_s * 1000:.0f} ms median, "
          f"{(run_s - RUN_S) * 1000:.0f} ms around the measurement (information, no goal)", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
