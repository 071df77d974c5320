"""False alarms of `xtalk compare` across campaigns (the A/A of the question users ask most,
"is A better than B", answered across boots): one spec run CAMPAIGNS times back to back,
unchanged, natively and on QEMU; every pair of campaigns compared (10 pairs for 5), each
with the others in the same results directory as its replicates (the drift between
campaigns measured, analysis/levels.py). The truth is "no difference". Goal: rows called
`different` at most alpha (the verdicts' 1 %) of all rows, per backend.
Also printed: the same pairs with `--no-replicates` (drift not measured: assumed, [analysis]
drift_pct), how many rows were `no-difference` and `inconclusive`, and each campaign's
value per row (the drift itself). The spec is the issue's: qsort, basicmath and a pointer
chase, solo and next to a cache thrasher on the other core, 6 runs each; about 5 minutes
a backend here. The sizes (cache_thrash's llc*1.5) are measured ones: `xtalk host caches`
runs into the same directory first, as a user would. XTALK_BENCH_CAMPAIGNS sets the number of campaigns (at least 5 for the
goal's 10 pairs); XTALK_BENCH_DIR keeps the campaigns there (default: a temporary directory).
"""
from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.common import backends, report
from xtalk.results.store import list_campaigns

CAMPAIGNS = int(os.environ.get("XTALK_BENCH_CAMPAIGNS", "5"))
ALPHA_PCT = 1.0
SPEC = """
name = "aa-{backend}"
cpus = [0, 1]
[backend]
kind = "{backend}"
[run]
duration_s = 1
repetitions = 6
start_gap_s = 0.05
[measurer]
bench = "qsort"
[[stressors]]
name = "thrash"
bench = "cache_thrash"
[matrix]
"measurer.bench" = ["qsort", "basicmath", "pointer_chase"]
placement = ["solo", "other-core"]
start_order = ["stressor-first"]
"""
ROOT = Path(__file__).resolve().parent.parent
VERDICTS = ("different", "no-difference", "inconclusive")


def xtalk(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "xtalk.cli.main", *args], check=True, capture_output=True,
                          text=True)


def compare_all(out: Path, ids: list[str], *extra: str) -> list[dict]:
    rows = []
    for a, b in itertools.combinations(ids, 2):
        cmp = json.loads(xtalk("compare", a, b, "--out", str(out), "--json", *extra).stdout)
        assert len(cmp["rows"]) == 6, f"every comparison must match all six configurations: {a} {b}"
        rows += cmp["rows"]
    return rows


def aa_rate(backend: str, tmp: Path) -> float:
    spec = tmp / f"{backend}.toml"
    spec.write_text(SPEC.format(backend=backend))
    out = tmp / backend
    xtalk("host", "caches", str(ROOT / "experiments" / "caches.toml"), "--backend", backend, "--out", str(out))
    for i in range(CAMPAIGNS):
        xtalk("run", str(spec), "--out", str(out))
        print(f"  {backend}: campaign {i + 1} of {CAMPAIGNS} done", flush=True)
    ids = sorted(s.path.name for s in list_campaigns(out) if s.path.name.startswith(f"aa-{backend}-"))
    rows = compare_all(out, ids)
    for r in rows:
        if r["verdict"] == "different":
            print(f"  DIFFERENT: {r['sentence']}", flush=True)
    for r in rows[:6]:  # the first pair: its values and replicates are every campaign
        values = ", ".join(f"{v:.4g}" for v in r["campaign_values"]["a"] + r["campaign_values"]["b"]
                           + r["campaign_values"]["siblings_a"])
        print(f"  {backend} {r['config_id']} {r['metric']} {r['statistic']}: campaigns {values}; "
              f"{r['drift']['text']}", flush=True)
    alone = compare_all(out, ids, "--no-replicates")
    counts = {v: sum(r["verdict"] == v for r in rows) for v in VERDICTS}
    counts_alone = {v: sum(r["verdict"] == v for r in alone) for v in VERDICTS}
    pairs = len(ids) * (len(ids) - 1) // 2
    print(f"  {backend}: {pairs} pairs, {len(rows)} rows with replicates: {counts}; without (drift assumed): "
          f"{counts_alone}", flush=True)
    return 100 * counts["different"] / len(rows)


def main() -> int:
    subprocess.run(["make", "-s", "-C", str(ROOT), "native", "x86_64"], check=True)
    ok = True
    keep = os.environ.get("XTALK_BENCH_DIR")
    with tempfile.TemporaryDirectory() as scratch:
        tmp = keep or scratch
        Path(tmp).mkdir(parents=True, exist_ok=True)
        for backend in backends():
            ok &= report(f"cross_campaign_aa_different_{backend}", aa_rate(backend, Path(tmp)), ALPHA_PCT,
                         "% of rows")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
