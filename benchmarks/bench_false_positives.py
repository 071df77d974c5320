"""False alarms of the verdicts: a short native campaign run CAMPAIGNS times back to back,
unchanged; each campaign compared with the next by `xtalk compare` (A/A: the truth is
"no difference"). Goal: at most the nominal 5 % of compared (configuration, metric) rows
called `different` (the verdicts' alpha is 0.01; the goal is the issue's 5 %).
Also printed: how many rows were `no-difference` (the design resolved the negligible
change) and `inconclusive`.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.common import report
from xtalk.results.store import list_campaigns

CAMPAIGNS = 21
SPEC = """
name = "aa"
cpus = [0, 1]
[backend]
kind = "native"
[run]
duration_s = 0.5
repetitions = 5
start_gap_s = 0.05
[measurer]
bench = "qsort"
[matrix]
"measurer.bench" = ["qsort", "pointer_chase"]
"""
ROOT = Path(__file__).resolve().parent.parent


def xtalk(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "xtalk.cli.main", *args], check=True, capture_output=True,
                          text=True)


def main() -> int:
    subprocess.run(["make", "-s", "-C", str(ROOT), "native"], check=True)
    verdicts: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "spec.toml"
        spec.write_text(SPEC)
        for _ in range(CAMPAIGNS):
            xtalk("run", str(spec), "--out", tmp)
        stores = sorted(list_campaigns(Path(tmp)), key=lambda s: s.path.name)
        for a, b in zip(stores, stores[1:]):
            cmp = json.loads(xtalk("compare", str(a.path), str(b.path), "--out", tmp, "--json").stdout)
            verdicts += [r["verdict"] for r in cmp["rows"]]
            for r in cmp["rows"]:
                if r["verdict"] == "different":
                    print(f"  {r['sentence']}", flush=True)
    counts = {v: verdicts.count(v) for v in ("different", "no-difference", "inconclusive")}
    assert len(verdicts) == 2 * (len(stores) - 1), "every comparison must match both configurations"
    print(f"  {len(stores) - 1} A/A comparisons, {len(verdicts)} rows: {counts}", flush=True)
    return 0 if report("false_positive_rate", 100 * counts["different"] / max(1, len(verdicts)), 5, "%") else 1


if __name__ == "__main__":
    raise SystemExit(main())
