"""Campaign overhead on the qemu backend: goal <= 10 % of measured time (issue 4).

A campaign of 3 configurations (solo / other-core / same-core) x 3 repetitions, each run
measuring for 3 s (the quickstart's run length). Overhead = (wall time of `xtalk run` - measured time) / measured time,
where measured time is, per run, from the measurer's start to its XT END as stored.
Everything xtalk does around the measurements counts: validation, builds (already made),
spawning and pinning guests, collection, teardown, finalizing Parquet.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import report
from xtalk.results.query import connect
from xtalk.results.store import list_campaigns

SPEC = """
name = "overhead"
cpus = [0, 1]
[backend]
kind = "qemu"
[run]
duration_s = 3
repetitions = 3
[measurer]
bench = "qsort"
params = { size_kib = 256 }
[[stressors]]
name = "thrash"
bench = "cache_thrash"
[matrix]
placement = ["solo", "other-core", "same-core"]
"""
ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    subprocess.run(["make", "-s", "-C", str(ROOT), "native", "x86_64"], check=True)
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "spec.toml"
        spec.write_text(SPEC)
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "xtalk.cli.main", "run", str(spec), "--out", tmp],
                       check=True, capture_output=True)
        wall = time.perf_counter() - t
        (store,) = list_campaigns(Path(tmp))
        measured = connect(store).execute(
            "SELECT sum(t) FROM (SELECT max(t_s) AS t FROM samples GROUP BY run_id)").fetchone()[0]
    print(f"  9 runs: wall {wall:.2f} s, measured {measured:.2f} s", flush=True)
    return 0 if report("campaign_overhead", 100 * (wall - measured) / measured, 10, "%") else 1


if __name__ == "__main__":
    raise SystemExit(main())
