"""The levels of `xtalk host caches` are not given as the hardware's where the curve is
unsteady or L1 / L2 measured more than CLAIM_X off the machine's report
(calibration/caches_machine.py)."""
from __future__ import annotations

from xtalk.calibration.caches_machine import CLAIM_X, claim_doubt, doubt_levels

REPORTED = {"l1": 32 << 10, "l2": 512 << 10, "l3": 32 << 20}


def levels(*sizes: int) -> list[dict]:
    return [{"level": n + 1, "size_bytes": size} for n, size in enumerate(sizes)]


def line(state: str) -> dict:
    return {"state": state, "text": f"{state}: CPU 0 busy 1 %", "busiest": [], "steal_pct": 0.0}


def test_levels_near_their_report_are_no_doubt_and_the_llc_is_not_checked():
    assert claim_doubt(levels(33 << 10, 540 << 10, 4 << 20), REPORTED, None) is None
    assert claim_doubt(levels(int((32 << 10) * CLAIM_X) - 1), REPORTED, None) is None


def test_an_l2_off_its_report_is_said_with_both_sizes_and_an_unsteady_curve_first():
    why = claim_doubt(levels(33 << 10, 245 << 10, 4 << 20), REPORTED, None)
    assert why.startswith("L2 measured 245 KiB where the machine reports 512 KiB") and "L1" not in why
    assert claim_doubt(levels(33 << 10, 245 << 10), REPORTED, "unsteady: 1.7 ns") == "unsteady: 1.7 ns"
    assert claim_doubt(levels(16 << 10), {}, None) is None  # nothing reported: nothing to check against


def test_a_doubt_makes_the_levels_cannot_and_leaves_the_other_answers():
    m = {"state": "doubtful", "text": "doubtful: x", "answers": {"levels": line("doubtful"), "line": line("measurable")},
         "cannot": [], "doubtful": ["levels"]}
    got = doubt_levels(m, "L2 measured 245 KiB where the machine reports 512 KiB")
    assert got["state"] == "cannot" and got["cannot"] == ["levels"] and got["doubtful"] == []
    assert got["answers"]["levels"]["text"].startswith("L2 measured 245 KiB") and got["answers"]["line"] == line(
        "measurable")
    assert doubt_levels(m, None) is m
