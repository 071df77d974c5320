"""`xtalk host caches` per backend: the whole probe (latency curve, sharing pairs,
bandwidth, the record kept) within 30 s a host and backend (issue 41), and its private
levels against sysfs: the measured L1d and L2 within 25 % of what sysfs gives for them
(printed as the ratio measured/reported, goal between 0.75 and 1.25).
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import backends, report
from xtalk.host.metadata import caches

GOAL_S = 30
SPEC = Path(__file__).resolve().parents[1] / "experiments" / "caches.toml"


def main() -> int:
    met = True
    private = {c["level"]: c["size_bytes"] for c in caches() if c["level"] in (1, 2)
               and c["type"] in ("Data", "Unified") and c["shared_cpus"] in ("0", "")}
    for kind in backends():
        with tempfile.TemporaryDirectory() as out:
            t0 = time.monotonic()
            done = subprocess.run([sys.executable, "-m", "xtalk.cli.main", "host", "caches", str(SPEC), "--backend", kind,
                                   "--out", out, "--json"], capture_output=True, text=True)
            took = time.monotonic() - t0
        if done.returncode:
            print(f"  {kind}: xtalk host caches failed: {done.stderr.strip()[-500:]}", flush=True)
            met = False
            continue
        met &= report(f"cache_probe_{kind}_s", took, GOAL_S, "s")
        (record,) = json.loads(done.stdout)
        measured = {lv["level"]: lv["size_bytes"] for lv in record["levels"]}
        for level, size in sorted(private.items()):
            ratio = measured.get(level, 0) / size
            print(f"  {kind} L{level}: measured {measured.get(level, 0)} bytes, sysfs {size}: ratio {ratio:.2f} "
                  f"({'ok' if 0.75 <= ratio <= 1.25 else 'MISSED'}: goal 0.75 .. 1.25)", flush=True)
            met &= 0.75 <= ratio <= 1.25
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
