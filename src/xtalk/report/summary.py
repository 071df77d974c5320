"""What `xtalk run` tells when a campaign ends: the headline (headline.py: the runs that
passed, were degraded or did not pass, the strongest verdict, the worst case), the gates,
the verdicts, and the exit status that follows (3: a run did not pass, else 1: a KPI gate
failed, else 0)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..errors import EXIT_GATE_FAILED, EXIT_INFRASTRUCTURE, EXIT_OK
from .headline import headline

VERDICT_KEYS = ("config_id", "metric", "verdict", "statistic", "change_pct", "ci95_pct", "noise_floor_pct",
                "sentence")


@dataclass
class RunSummary:
    data: dict                                   # what `xtalk run --json` prints
    degraded: dict[str, str] = field(default_factory=dict)    # run id -> why (kept, used by no statistic)
    not_passed: dict[str, str] = field(default_factory=dict)  # run id -> status, or why it did not run
    total: int = 0

    def exit_status(self) -> int:
        if self.not_passed:
            return EXIT_INFRASTRUCTURE
        return EXIT_GATE_FAILED if self.data["gates_failed"] else EXIT_OK


def run_summary(res: dict, statuses: list[str], not_run: dict[str, str], skipped: int) -> RunSummary:
    """`res`: the campaign's analysis result; `statuses`: the stored runs' statuses;
    `not_run`: runs that never ran, and why; `skipped`: runs a resume found completed."""
    head = headline(res, not_run)
    runs = head["runs"]
    data = {
        "campaign": Path(res["path"]).name, "path": res["path"],
        "runs": len(statuses), "passed": statuses.count("pass"),
        "degraded": statuses.count("degraded"),
        "failed": len(statuses) - statuses.count("pass") - statuses.count("degraded"), "skipped_resumed": skipped,
        "not_run": not_run,
        "left_out": res["left_out"],
        "gates": res["gates"], "gates_failed": sum(not g["passed"] for g in res["gates"]),
        **{key: [{k: v.get(k) for k in VERDICT_KEYS} for v in res[key]] for key in ("verdicts", "overhead", "boards")},
        "headline": head,
    }
    return RunSummary(data, runs["degraded_runs"], runs["not_passed"], runs["total"])
