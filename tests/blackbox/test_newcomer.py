"""A newcomer follows the README (issue 26): a real-time guest's timer latency with a
memory-bandwidth neighbour switched on at 1 s and off at 3 s, 3 repetitions, no solo.
`xtalk spec check` says before anything runs that this design cannot reach a verdict, and
how to fix it; with the fix it passes, and spec check and `run --dry-run` show the design;
the fixed campaign runs as written (QEMU/KVM) and its report's first screen, in headless
Chromium at 1366x768, shows the runs' status, the verdict and the worst case."""
from __future__ import annotations

import re

import pytest

from tests.framework.backends import NEEDS_QEMU
from tests.framework.browser import HEADLINE, above_fold, headline_text, layout, screenshot
from tests.framework.cli import campaign_dir, write_spec, xtalk
from tests.framework.specs import NEWCOMER_SPEC as SPEC


def test_spec_check_tells_the_design_problem_and_its_fix_which_then_passes(tmp_path):
    path = write_spec(tmp_path, SPEC)
    res = xtalk("spec", "check", path)
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stdout + res.stderr
    (problem,) = [line for line in res.stderr.splitlines() if line.startswith("  - ")]
    assert problem.startswith("  - run.repetitions (line 7): configuration other-core: 3 runs per configuration "
                              "of 1 on/off window each: 3 windows"), problem
    assert "no verdict at alpha 0.01 is possible" in problem and "[paired] (off_s = 1, on_s = 1)" in problem
    assert "other-core" in res.stdout and "NO" in res.stdout  # the design table came before the error
    reps = re.search(r"Fix: use repetitions = (\d+)", problem)[1]

    fixed = write_spec(tmp_path, SPEC.replace("repetitions = 3", f"repetitions = {reps}"))
    for command in (("spec", "check", fixed), ("run", "--dry-run", fixed)):
        res = xtalk(*command)
        assert res.returncode == 0, res.stdout + res.stderr
        table = res.stdout[res.stdout.index("rtcheck: design (alpha 0.01)"):]
        (row,) = [line for line in table.splitlines() if line.startswith("│ other-core")]
        assert f"{reps} windows in {reps} runs" in row and "exact sign-flip test" in row and "yes" in row, table
        assert "wall time: about" in res.stdout and f"for {reps} run(s)" in res.stdout, res.stdout
    assert ": ok — campaign 'rtcheck'" in xtalk("spec", "check", fixed).stdout


def test_leaving_out_repetitions_is_said(tmp_path):
    res = xtalk("spec", "check", write_spec(tmp_path, SPEC.replace("repetitions = 3\n", "")))
    assert res.returncode == 2
    assert "note: run.repetitions not set: 1 run per configuration (the default)" in res.stdout, res.stdout
    assert "1 run per configuration (repetitions not set: the default is 1)" in res.stderr, res.stderr


@pytest.mark.slow
@NEEDS_QEMU
def test_the_paired_fix_runs_and_the_reports_first_screen_is_the_answer(tmp_path, chromium):
    problem = xtalk("spec", "check", write_spec(tmp_path, SPEC)).stderr
    duration = re.search(r"replace the \[\[timeline\]\] events with \[paired\] \(off_s = 1, on_s = 1\) and "
                         r"run.duration_s = (\d+)", problem)[1]
    fixed = SPEC[:SPEC.index("[[timeline]]")].replace("duration_s = 5", f"duration_s = {duration}")
    path = write_spec(tmp_path, fixed + "[paired]\noff_s = 1\non_s = 1\n")
    check = xtalk("spec", "check", path)
    assert check.returncode == 0, check.stdout + check.stderr

    out = tmp_path / "out"
    res = xtalk("run", path, "--out", out, "--report")
    assert res.returncode == 0, res.stdout + res.stderr
    page = campaign_dir(out) / "report" / "report.html"
    screenshot(chromium, page, tmp_path / "newcomer-first-screen.png", tmp_path / "chrome", "1366,768")
    boxes = layout(chromium, page, tmp_path / "chrome2", HEADLINE)
    for part in ("runs", "verdict", "worst", "first_verdict"):
        above_fold(boxes, part)
    text = page.read_text()
    assert headline_text(text, "runs") == "runs 3 of 3 runs passed"
    verdict = headline_text(text, "verdict")
    assert re.match(r"verdict (interference|no interference|inconclusive)", verdict), verdict
    # the on/off windows of the paired design, or that this machine cannot answer: the test shares the host
    # with others (a QEMU of another test took half of its CPUs in one run), and the report says so first
    assert "windows" in verdict or "p99" in verdict or "this machine cannot answer" in verdict, verdict
    worst = headline_text(text, "worst")
    assert re.match(r"worst case timer_latency: max [\d.,]+ (µs|ms) \(other-core\)", worst), worst
