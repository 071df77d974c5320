"""Analysis of 1e8 samples: goal <= 10 s and <= 2 GB peak RSS (issue 5).

Writes a synthetic campaign (2 configurations x 5 runs x 1e7 heavy-tailed samples, a
deadline, a gate and a stress window in every run) into a temporary directory in
chunks, then runs xtalk's analysis (`analyze`: statistics, comparisons, outliers, ramp-up,
timeline, change points, EVT, gates, verdicts) in a fresh process and reports its time
and peak RSS as ratios to the goals. Printed, also, for information: the same for the
whole `xtalk report` (plots, HTML, exports incl. the 1e8-row Parquet copy).
Usage: python -m benchmarks.bench_analysis [--samples N] [--report]
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GOAL_S = 10.0
GOAL_BYTES = 2 * 1024 ** 3

CHILD = """
import json, sys, time, resource
from pathlib import Path
from xtalk.results.store import CampaignStore
from xtalk.analysis.pipeline import analyze
t = time.perf_counter()
a = analyze(CampaignStore(Path(sys.argv[1])))
dt = time.perf_counter() - t
n = sum(r["n"] for r in a.result["stats"])
print(json.dumps({"seconds": dt, "n": n, "maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  "gates": [g["passed"] for g in a.result["gates"]],
                  "timeline_detected": [t["detected"] for t in a.result["timelines"]]}))
"""


def make_campaign(root: Path, total: int, runs_per_config: int = 5) -> Path:
    from tests.framework.synthetic import heavy_tail, with_step, write_campaign, write_run
    configs = [("solo", heavy_tail(1000, 100)), ("other-core", heavy_tail(1030, 100))]
    per = total // (len(configs) * runs_per_config)
    ids = [f"{c}-r{r + 1}" for r in range(runs_per_config) for c, _ in configs]
    duration = per * 1250 / 1e9
    timeline = [{"at_s": duration / 3, "action": "start", "target": "thrash"},
                {"at_s": 2 * duration / 3, "action": "stop", "target": "thrash"}]
    spec = {"matrix": {"placement": [c for c, _ in configs]}, "deadlines": [{"metric": "m", "ns": 3000}],
            "gates": [{"metric": "m", "stat": "p99", "max_increase_pct": 10}], "timeline": timeline}
    path = write_campaign(root / "bench-1e8", "bench", spec, ids)
    for i, rid in enumerate(ids):
        cid = rid.rsplit("-", 1)[0]
        gen = with_step(dict(configs)[cid], per // 3, 2 * per // 3, 1.05)
        events = [{"at_sample": at, "planned_s": e["at_s"], "action": e["action"], "target": e["target"]}
                  for at, e in zip((per // 3, 2 * per // 3), timeline)]
        write_run(path, rid, {"placement": cid}, per, gen, seed=i, index=i, events=events)
    return path


def child_run(argv: list[str]) -> tuple[float, int, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True)
    wall = time.perf_counter() - t
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{argv[:4]} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return wall, max(rss, before) * 1024, proc.stdout


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--samples", type=float, default=1e8)
    ap.add_argument("--report", action="store_true", help="also time the whole `xtalk report`")
    args = ap.parse_args(argv if argv is not None else [])
    total = int(args.samples)
    with tempfile.TemporaryDirectory(prefix="xtalk-bench-") as tmp:
        t = time.perf_counter()
        path = make_campaign(Path(tmp), total)
        print(f"generated {total:.0e} samples in {time.perf_counter() - t:.1f} s ({path})", flush=True)
        _, rss, out = child_run([sys.executable, "-c", CHILD, str(path)])
        res = json.loads(out.strip().splitlines()[-1])
        secs = res["seconds"]
        ok = secs <= GOAL_S and rss <= GOAL_BYTES and res["n"] == total
        print(f"analysis_{total:.0e}".replace("+0", "").replace("+", "") +
              f": {secs:.1f} s ({secs / GOAL_S:.2f} of goal {GOAL_S:g} s), peak RSS {rss / 1024 ** 3:.2f} GB "
              f"({rss / GOAL_BYTES:.2f} of {GOAL_BYTES / 1024 ** 3:g} GB); n={res['n']}, "
              f"gates passed={res['gates']}, timeline events detected={res['timeline_detected']}"
              + (" ok" if ok else " MISSED"), flush=True)
        if args.report or "--report" in sys.argv:
            wall, rss2, _ = child_run([sys.executable, "-m", "xtalk.cli.main", "report", str(path),
                                       "--dest", str(Path(tmp) / "report")])
            print(f"report_{total:.0e} (information, no goal): {wall:.1f} s wall incl. start-up, "
                  f"peak RSS {rss2 / 1024 ** 3:.2f} GB", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
