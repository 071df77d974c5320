"""Campaigns of 10,000 runs: goal `xtalk report` in <= 60 s, and list, show, report,
compare and the store's per-run bookkeeping of `run` growing no worse than linearly with
the runs (issue 27).

Writes synthetic campaigns (tests/framework/synthetic.py: 5 configurations, 200 samples a
run) of 1,000 and 10,000 runs into a temporary directory, each with a twin (hard links,
its own campaign.json) for `compare`, then times each command in a fresh process (wall
time, CPU time for a loaded host, peak RSS: from wait4) at both sizes and prints the
ratio 10k/1k of CPU time (steadier than wall time where other work shares the host) and of
peak RSS: linear means about 10 (less where start-up, imports, dominates). For
`run`: the store's per-run writes (start_run, samples, events, finish: meta.json,
Parquet, manifest) of a few runs added to each campaign, in ms a run: flat means a ratio
of about 1 (goal <= 2, for noise; quadratic would be 10). It takes some 10 minutes.
Usage: python -m benchmarks.bench_campaign_scale [--runs 1000,10000]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from benchmarks.common import report

GOAL_REPORT_S = 60.0
LINEAR = 10.0          # goal for the 10k/1k ratio of each command's time and peak memory
FLAT = 2.0             # goal for the 10k/1k ratio of the per-run bookkeeping (1: flat; quadratic: 10)
CONFIGS = ("solo", "other-core", "same-core", "smt", "remote")
SAMPLES = 200          # a run's samples: the figures measure the bookkeeping per run, not the samples
ADDED_RUNS = 30        # runs `run`'s bookkeeping adds to each campaign to time it


def run_ids(runs: int) -> list[str]:
    return [f"{c}-r{r + 1}" for r in range(runs // len(CONFIGS)) for c in CONFIGS]


def _write_runs(path: Path, ids: list[tuple[int, str]]) -> None:
    from tests.framework.synthetic import heavy_tail, write_run
    for i, rid in ids:
        config = rid.rsplit("-", 1)[0]
        write_run(path, rid, {"placement": config}, SAMPLES, heavy_tail(1000 + 10 * CONFIGS.index(config)),
                  seed=i, index=i)


def make_campaign(root: Path, runs: int) -> tuple[str, str]:
    """A campaign of `runs` runs and its twin; their directory names."""
    from tests.framework.synthetic import write_campaign
    name = f"scale{runs}"
    ids = run_ids(runs)
    path = write_campaign(root / f"{name}-20260101-000000", name, {"matrix": {"placement": list(CONFIGS)}}, ids)
    workers = os.cpu_count() or 1
    with ProcessPoolExecutor(workers) as pool:
        list(pool.map(_write_runs, [path] * workers, [list(enumerate(ids))[w::workers] for w in range(workers)]))
    twin = root / f"{name}-20260101-000001"
    shutil.copytree(path, twin, copy_function=os.link)
    record = json.loads((twin / "campaign.json").read_text())
    (twin / "campaign.json").unlink()  # a hard link to the first's: write a file of its own
    (twin / "campaign.json").write_text(json.dumps(dict(record, id=twin.name)))
    return path.name, twin.name


def timed(argv: list[str]) -> tuple[float, int, float]:
    """(wall seconds, peak RSS bytes, CPU seconds) of a command in a fresh process."""
    t = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):  # 1: a gate failed, still a report
        raise RuntimeError(f"{' '.join(argv[3:])} failed ({proc.returncode}): {proc.stderr.read().decode()[-2000:]}")
    proc.stderr.close()
    return wall, usage.ru_maxrss * 1024, usage.ru_utime + usage.ru_stime


def commands(root: Path, first: str, twin: str) -> dict[str, list[str]]:
    xtalk = [sys.executable, "-m", "xtalk.cli.main"]
    out = ["--out", str(root)]
    return {"list": xtalk + ["list"] + out, "show": xtalk + ["show", first] + out,
            "report": xtalk + ["report", first, "--dest", str(root / "report")] + out,
            "compare": xtalk + ["compare", first, twin, "--no-replicates", "--dest", str(root / "compare")] + out}


def bookkeeping_ms(root: Path, campaign: str) -> float:
    """Median ms a run of the store's per-run writes, for runs added to a campaign."""
    from xtalk.results.schema import SAMPLE_DTYPE
    from xtalk.results.store import CampaignStore
    store = CampaignStore(root / campaign)
    records = np.zeros(SAMPLES, SAMPLE_DTYPE)
    records["seq"] = np.arange(SAMPLES)
    records["t"] = np.cumsum(np.full(SAMPLES, 1000))
    records["value"] = 1000
    times = []
    for i in range(ADDED_RUNS):
        t = time.perf_counter()
        writer = store.start_run({"run_id": f"added-r{i + 1}", "config_id": "solo", "config": {"placement": "solo"},
                                  "index": i, "warmup": False, "repetition": i + 1})
        writer.event("timeline", 0, action="start", target="thrash")
        writer.samples(records)
        writer.finish("pass", sample_count=SAMPLES, freq_hz=1e9)
        times.append(time.perf_counter() - t)
    for i in range(ADDED_RUNS):
        shutil.rmtree(store.run_dir(f"added-r{i + 1}"))
    return 1000 * float(np.median(times))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", default="1000,10000", help="the two campaign sizes, small,large")
    args = ap.parse_args(argv if argv is not None else [])
    small, large = (int(n) for n in args.runs.split(","))
    report_wall = 0.0  # of the larger campaign: the goal
    figures: dict[str, dict[int, tuple[float, int]]] = {}  # command -> runs -> (CPU s or ms a run, peak RSS)
    with tempfile.TemporaryDirectory(prefix="xtalk-bench-scale-") as tmp:
        for runs in (small, large):
            root = Path(tmp) / str(runs)
            t = time.perf_counter()
            first, twin = make_campaign(root, runs)
            print(f"  generated 2 x {runs} runs in {time.perf_counter() - t:.1f} s", flush=True)
            for cmd, argv_ in commands(root, first, twin).items():
                wall, rss, cpu = timed(argv_)
                report_wall = wall if cmd == "report" else report_wall
                figures.setdefault(cmd, {})[runs] = cpu, rss
                print(f"  {cmd} of {runs} runs: {wall:.2f} s (CPU {cpu:.2f} s), peak {rss / 2**20:.0f} MiB", flush=True)
            figures.setdefault("run bookkeeping", {})[runs] = ms, _ = bookkeeping_ms(root, first), 0
            print(f"  run bookkeeping in a campaign of {runs} runs: {ms:.1f} ms a run", flush=True)
            shutil.rmtree(root)
    met = report(f"campaign_scale_report_{large}", report_wall, GOAL_REPORT_S, "s")
    scale = large / small
    for cmd, at in figures.items():
        (t0, m0), (t1, m1) = at[small], at[large]
        if cmd == "run bookkeeping":  # ms a run: flat
            met &= report("campaign_scale_run_bookkeeping_ratio", t1 / t0, FLAT, "x")
            continue
        met &= report(f"campaign_scale_{cmd}_time_ratio", t1 / t0 * LINEAR / scale, LINEAR, "x")
        met &= report(f"campaign_scale_{cmd}_memory_ratio", m1 / m0 * LINEAR / scale, LINEAR, "x")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
