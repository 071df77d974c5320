"""Does the search find the worst case on a small budget? `xtalk search`'s sampler and its
first trials (search/engine.py: the channels' defaults, the corners of each candidate's
box, then TPE with 2 random start-up trials) on two known answers, without runs (the harm
computed from the neighbour's parameters), over SEEDS seeds of 10 trials each:
- a steal's length and period within the catalogue's ranges; harm: the share it takes
  (the worst: the longest steal at the shortest period, 2000 of 4000 µs);
- a memcpy's size within its range (32 KiB to twice the LLC); harm: a bump one octave
  wide (sd) at the LLC's size, smooth and with its peak inside the range.
Goal (issue 42): 10 trials reach at least 90 % of the worst case, on the mean over seeds;
the worst seed is printed too. The issue's search of 10 trials reached 57 % of the steal's
worst case; xtalk's settings before (TPE with 5 random start-up trials, no corners) reach
74 % of it and 80 % of the bump over these 20 seeds.
"""
from __future__ import annotations

import math
import os
import warnings

import numpy as np
import optuna

from benchmarks.common import report
from xtalk.search import space
from xtalk.search.engine import enqueue_corners, enqueue_defaults, sampler

SEEDS, TRIALS, GOAL_PCT = 20, 10, 90.0
FIRST_SEED = int(os.environ.get("XTALK_BENCH_FIRST_SEED", "0"))  # other seeds: not tuned to these
CACHES = {"l1": 32 << 10, "l2": 1 << 20, "llc": 16 << 20, "shared": 16 << 20}


def steal_share(params: dict) -> float:
    return min(params["steal_us"], params["period_us"]) / params["period_us"]


def llc_bump(params: dict) -> float:
    return math.exp(-math.log2(params["size"] / CACHES["llc"]) ** 2 / 2)


def reached(cands: list, harm, worst: float, seed: int) -> float:
    """% of the worst case the best of TRIALS trials reached."""
    study = optuna.create_study(direction="maximize", sampler=sampler(seed))
    enqueue_defaults(study, cands, CACHES, ("none",))  # no channel asked: a search of --stressor only
    enqueue_corners(study, cands)
    for _ in range(TRIALS):
        trial = study.ask()
        study.tell(trial, harm(space.suggest(trial, cands, 1)["params"]))
    return 100 * study.best_value / worst


def main() -> int:
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    ok = True
    cases = (("steal", space.candidates("native", {}, CACHES, ["steal"], [], []), steal_share),
             ("memcpy_size", space.candidates("native", {}, CACHES, ["memcpy"], [], []), llc_bump))
    for name, cands, harm in cases:
        ranges = [(d.low, d.high) for d in cands[0].dims if d.kind in ("size", "int", "float") and d.low != d.high]
        # the longest steal at the shortest period; the bump's top (the LLC lies inside the range)
        worst = min(1.0, ranges[0][1] / ranges[1][0]) if name == "steal" else 1.0
        got = [reached(cands, harm, worst, seed) for seed in range(FIRST_SEED, FIRST_SEED + SEEDS)]
        print(f"  {name}: ranges {ranges}; {TRIALS} trials reach {np.mean(got):.1f} % of the worst case on the mean "
              f"over {SEEDS} seeds, {min(got):.1f} % at the worst seed", flush=True)
        ok &= report(f"search_budget_reach_{name}", float(np.mean(got)), GOAL_PCT, "% of the worst case",
                     higher_is_better=True)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
