"""SIGKILL + --resume: a campaign of 8 short runs SIGKILLed (the xtalk process alone, not
its group) at varied moments: while it creates its campaign, during a run, in a run's
teardown (its measurer gone, its record not yet final), just after a run passed, at set
times, during --report, during the resume itself, and three times in a row; then
`xtalk run SPEC --out OUT --resume` (as it tells) until done. Then: every planned run
stored exactly once and passed, the runs `show` called passed before the resume kept as
they were, `show --verify` exit 0, no process of the campaign left, no samples.bin holding
megabytes of reserved-but-unused blocks, no .tmp/.partial left after the next command,
no ring of the killed xtalk left in /dev/shm.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

from harness import OK, Case, area, kill_only, spec, wait_for
from store import (campaigns, check_complete, check_leftovers, check_waste, metas, only_campaign, planned)

case = area("kills")


def nth_run(out: Path, k: int) -> str | None:
    campaign = only_campaign(out)
    if campaign is None:
        return None
    plan = planned(campaign)
    return plan[k - 1] if len(plan) >= k else None


def meta_of(out: Path, run: str | None) -> dict:
    campaign = only_campaign(out)
    return metas(campaign).get(run, {}) if campaign and run else {}


def measurer_gone(out: Path, run: str) -> bool:
    events = only_campaign(out) / "runs" / run / "events.jsonl"
    try:
        pids = [json.loads(line)["pid"] for line in events.read_text().splitlines()
                if '"guest_start"' in line and '"measurer"' in line]
    except (OSError, ValueError):
        return False
    return bool(pids) and not Path(f"/proc/{pids[0]}").exists()


# kill points: each waits (polling) for its moment given the started xtalk and OUT
def after(seconds: float):
    return lambda proc, out: time.monotonic() - proc.probe_t0 >= seconds


def during_run(k: int):
    def ready(proc, out):
        run = nth_run(out, k)
        samples = only_campaign(out) / "runs" / str(run) / "samples.bin" if run else None
        return meta_of(out, run).get("status") == "running" and samples.exists() and samples.stat().st_size > 0
    return ready


def teardown(k: int):
    def ready(proc, out):
        run = nth_run(out, k)
        return meta_of(out, run).get("status") == "running" and measurer_gone(out, run)
    return ready


def passed(k: int):
    return lambda proc, out: meta_of(out, nth_run(out, k)).get("status") == "pass"


def report_partial(delay: float):
    def ready(proc, out):
        campaign = only_campaign(out)
        if campaign and any(campaign.glob(".report.*.partial")):
            time.sleep(delay)
            return True
        return False
    return ready


def shown_passed(c: Case, out: Path) -> dict[str, int]:
    """{run: attempt} of the runs `xtalk show --json` calls passed (and leaves in) now."""
    campaign = only_campaign(out)
    if campaign is None:
        return {}
    res = c.xtalk("show", campaign, "--json", expect=(OK, 3))
    try:
        data = json.loads(res.out)
    except ValueError:
        return {}
    left = {entry.get("run") for entry in data.get("left_out", [])}
    return {r["run_id"]: r["attempt"] for r in data.get("runs", [])
            if r.get("status") == "pass" and r["run_id"] not in left}


def killed(c: Case, spec_path: Path, point, resume: bool, report: bool) -> tuple[int, dict[str, int]]:
    """Start the campaign (or its resume), SIGKILL it at `point`; its PID and what show calls passed."""
    args = ["run", spec_path, "--out", c.out] + (["--resume"] if resume else []) + (["--report"] if report else [])
    proc = c.start(*args)
    if not wait_for(lambda: proc.poll() is not None or point(proc, c.out), 60, step=0.005):
        c.note("the kill point never came (killed at 60 s)")
    if proc.poll() is not None:
        c.note("the campaign ended before its kill point")
        c.finish(proc, expect=(OK,))
        return proc.pid, {}
    kill_only(proc)
    c.finish(proc, expect=(-9,), timeout=5)
    c.orphans(grace_s=5, when="5 s after xtalk was SIGKILLed")
    return proc.pid, shown_passed(c, c.out)


def kill_plan(*points, report: bool = False):
    def run(c: Case):
        spec_path = spec(c, name="kill", reps=4)
        before, pids = {}, []
        for i, point in enumerate(points):
            pid, passed_then = killed(c, spec_path, point, resume=i > 0 and bool(campaigns(c.out)), report=report)
            pids.append(pid)
            before.update(passed_then)
        resume = ["--resume"] if campaigns(c.out) else []
        c.xtalk("run", spec_path, "--out", c.out, *resume, *(["--report"] if report else []), expect=(OK,),
                timeout=120)
        campaign = only_campaign(c.out)
        if not c.check(campaign is not None, "data lost", f"campaigns in OUT: {campaigns(c.out)}"):
            return
        check_complete(c, campaign, before)
        if report:
            c.xtalk("report", campaign, "--no-samples", expect=(OK,))
        check_leftovers(c, campaign)
        check_waste(c, campaign)
        rings = [str(p) for pid in pids for p in Path("/dev/shm").glob(f"xtalk-{pid}-*")]
        c.check(not rings, "wrong", f"rings of the killed xtalk left in /dev/shm: {rings}")
        c.note(f"{len(points)} kill(s); passed before the resume: {len(before)}")
    return run


PLANS = {
    "while-creating-the-campaign-0.1s": [after(0.1)],
    "while-creating-the-campaign-0.5s": [after(0.5)],
    "during-run-1": [during_run(1)],
    "during-run-2": [during_run(2)],
    "during-run-4": [during_run(4)],
    "during-run-6": [during_run(6)],
    "during-the-last-run": [during_run(8)],
    "teardown-of-run-1": [teardown(1)],
    "teardown-of-run-3": [teardown(3)],
    "teardown-of-run-5": [teardown(5)],
    "teardown-of-the-last-run": [teardown(8)],
    "just-after-run-1-passed": [passed(1)],
    "just-after-run-4-passed": [passed(4)],
    "at-1.2s": [after(1.2)],
    "at-2.3s": [after(2.3)],
    "at-2.9s": [after(2.9)],
    "during-the-resume-too": [during_run(2), during_run(4)],
    "three-kills-in-a-row": [during_run(2), teardown(4), during_run(6)],
}
for name, points in PLANS.items():
    case(name)(kill_plan(*points))
case("during-report")(kill_plan(report_partial(0.0), report=True))
case("during-report-0.3s-in")(kill_plan(report_partial(0.3), report=True))
