"""Known answers under controlled outside load (issue 57): the gate's known-answer tests (a
same-core hog, the paired 3 % steal, calibrate's steals, `host caches`), each run alone with
pytest while a load of known kind runs beside it: none; a niced CPU-bound process on the
other CPU; a spinner on the measured CPU (0: every case's measurer) taking 10 % and 30 %
of it. Each test judges its own truth (tests/integration/test_verdicts.py,
tests/blackbox/test_host_caches.py) and says when xtalk voided it (known_answer.py: the
machine line said it cannot answer), so each cell is: held (passed), voided (passed, xtalk
said it cannot answer) or wrong (failed: an answer given that does not hold the truth).
Goal: 0 wrong. Printed: the table case x load. `python -m benchmarks.bench_outside_load
[CASE ...]` runs the cases named (hog, paired, calibrate, caches) only.
Caveat: about 20 minutes on 2 CPUs; stress-ng (installed by scripts/setup.sh) makes the load.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.common import report

ROOT = Path(__file__).resolve().parent.parent
CASES = {
    "hog": "tests/integration/test_verdicts.py::test_a_same_core_hog_is_interference_in_stolen_time_and_long_gaps"
           "[native]",
    "paired": "tests/integration/test_verdicts.py::test_paired_design_finds_a_3pct_steal_and_not_a_null_one[native]",
    "calibrate": "tests/integration/test_verdicts.py::test_calibrate_recovers_a_known_steal[native]",
    "caches": "tests/blackbox/test_host_caches.py::test_native_hierarchy_is_measured_kept_and_shown",
}
LOADS = {
    "none": None,
    "niced, other CPU": ["nice", "-n", "19", "stress-ng", "--cpu", "1", "--taskset", "1"],
    "10 % of the measured CPU": ["stress-ng", "--cpu", "1", "--cpu-load", "10", "--taskset", "0"],
    "30 % of the measured CPU": ["stress-ng", "--cpu", "1", "--cpu-load", "30", "--taskset", "0"],
}


def one(test: str, load: list[str] | None) -> tuple[str, str]:
    """(held / voided / wrong, the line that says why) of one test beside one load."""
    with tempfile.TemporaryDirectory(prefix="xtalk-outside-load-") as record:
        env = dict(os.environ, XTALK_TEST_RECORD=record)
        beside = subprocess.Popen(load, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  start_new_session=True) if load else None
        try:
            res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", test],
                                 cwd=ROOT, env=env, capture_output=True, text=True)
        finally:
            if beside is not None:
                os.killpg(beside.pid, signal.SIGTERM)
                beside.wait()
        voided = Path(record, "voided.jsonl")
        if res.returncode != 0:
            lines = [line for line in res.stdout.splitlines() if line.startswith(("FAILED", "ERROR"))]
            return "wrong", (lines or res.stdout.splitlines()[-1:] or [""])[0][:300]
        if voided.exists():
            return "voided", json.loads(voided.read_text().splitlines()[0])["why"][:300]
        return "held", ""


def main() -> int:
    names = sys.argv[1:] if __name__ == "__main__" and len(sys.argv) > 1 else list(CASES)
    cells: dict[tuple[str, str], str] = {}
    for name in names:
        for load, argv in LOADS.items():
            outcome, why = one(CASES[name], argv)
            cells[name, load] = outcome
            print(f"  {name} x {load}: {outcome}{': ' + why if why else ''}", flush=True)
    width = max(map(len, LOADS))
    print(f"  {'case':<10} " + " ".join(f"{load:>{width}}" for load in LOADS))
    for name in names:
        print(f"  {name:<10} " + " ".join(f"{cells[name, load]:>{width}}" for load in LOADS))
    wrong = sum(outcome == "wrong" for outcome in cells.values())
    return 0 if report("known_answers_wrong_under_outside_load", wrong, 0, f"of {len(cells)}") else 1


if __name__ == "__main__":
    sys.exit(main())
