"""report/interference.py: a search's confirmation shows each channel default the stored
channel study measured too, with both intervals and why they may differ (issue 42: the
membw default x0.699 in the study and x1.346 in the confirmation, without a word)."""
from __future__ import annotations

from xtalk.report.interference import beside_study

ROW = {"channel": "membw", "placement": "other-core", "tested": True, "role": "default", "multiplier": 1.346,
       "multiplier_ci": [1.2, 1.5], "runs": ["r1", "r2", "r3", "r4", "r5"]}
STUDY = {"campaign": "s-channels-20261129", "duration_s": 2.0,
         "rows": {"membw@other-core": {"multiplier": 0.699, "multiplier_ci": [0.6, 0.8], "runs": 5}}}


def test_a_default_in_both_shows_both_intervals_and_the_reasons():
    (row,) = beside_study({"channels": [ROW]}, {"channel_study": STUDY, "confirm": {"runs": 5, "duration_s": 2.0}})
    assert "here ×1.346 [1.200, 1.500]" in row[1] and "s-channels-20261129: ×0.699 [0.600, 0.800]" in row[1]
    assert "drift between campaigns" in row[1] and "runs of" not in row[1]  # same runs and length: drift only
    (longer,) = beside_study({"channels": [ROW]}, {"channel_study": STUDY, "confirm": {"duration_s": 1.0}})
    assert "5 runs of 2.0 s there, 5 of 1.0 s here" in longer[1]


def test_no_study_or_another_placement_adds_nothing():
    assert beside_study({"channels": [ROW]}, {}) == []
    assert beside_study({"channels": [dict(ROW, placement="same-core")]}, {"channel_study": STUDY}) == []
