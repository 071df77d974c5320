"""Campaign overhead on each backend this host runs: goal <= 5 % of measured time (issue 27).

A campaign of 3 configurations (solo / other-core / same-core) x 3 repetitions, each run
measuring for 3 s (the quickstart's run length). Overhead = (wall time of `xtalk run` - measured time) / measured time,
where measured time is, per run, from the measurer's start to its XT END as stored.
Everything xtalk does around the measurements counts: starting Python, validation, builds
(already made), spawning and pinning guests, collection, teardown, finalizing Parquet and
the analysis and summary at the end. Where it goes is printed too, from the runs' events
(host CLOCK_MONOTONIC, the same clock as this process's): before the first guest starts,
inside the runs but outside their measured time (guests starting and stopping), between
one run's end and the next run's first guest, and after the last run's end.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import backends, report
from xtalk.results.query import connect
from xtalk.results.store import list_campaigns

SPEC = """
name = "overhead"
cpus = [0, 1]
[backend]
kind = "{kind}"
[run]
duration_s = 3
repetitions = 3
[measurer]
bench = "qsort"
params = {{ size_kib = 256 }}
[[stressors]]
name = "thrash"
bench = "cache_thrash"
[matrix]
placement = ["solo", "other-core", "same-core"]
"""
ROOT = Path(__file__).resolve().parent.parent
GOAL_PERCENT = 5


def run_bounds(run_dir: Path) -> tuple[int, int]:
    """A run's first guest start and its end, host ns (events.jsonl)."""
    events = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]
    first = min(e["host_ns"] for e in events if e["kind"] == "guest_start")
    return first, next(e["host_ns"] for e in events if e["kind"] == "run_end")


def overhead(kind: str) -> bool:
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "spec.toml"
        spec.write_text(SPEC.format(kind=kind))
        began, t = time.monotonic_ns(), time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "xtalk.cli.main", "run", str(spec), "--out", tmp],
                              capture_output=True, text=True)
        wall, ended = time.perf_counter() - t, time.monotonic_ns()
        if done.returncode:  # e.g. exit 2: another xtalk holds these CPUs (host/leases.py)
            print(f"  {kind}: xtalk run exited {done.returncode}: {done.stderr.strip()[-300:]}", flush=True)
            return False
        (store,) = list_campaigns(Path(tmp))
        measured = connect(store).execute(
            "SELECT sum(t) FROM (SELECT max(t_s) AS t FROM samples GROUP BY run_id)").fetchone()[0]
        bounds = [run_bounds(store.path / "runs" / run_id) for run_id in store.info["planned_runs"]]
    between = sum(start - end for (_, end), (start, _) in zip(bounds, bounds[1:])) / 1e9
    inside = sum(end - start for start, end in bounds) / 1e9 - measured
    print(f"  {kind}: {len(bounds)} runs: wall {wall:.2f} s, measured {measured:.2f} s; before the first run "
          f"{(bounds[0][0] - began) / 1e9:.2f} s, inside the runs (starts, stops) {inside:.2f} s, between runs "
          f"{between:.2f} s, after the last {(ended - bounds[-1][1]) / 1e9:.2f} s", flush=True)
    return report(f"campaign_overhead_{kind}", 100 * (wall - measured) / measured, GOAL_PERCENT, "%")


def main() -> int:
    subprocess.run(["make", "-s", "-C", str(ROOT), "native", "x86_64"], check=True)
    met = [overhead(kind) for kind in backends()]
    return 0 if all(met) else 1


if __name__ == "__main__":
    raise SystemExit(main())
