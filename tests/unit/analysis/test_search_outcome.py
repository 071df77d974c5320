"""A search's outcome (analysis/search.py): the found neighbour over the best channel
default as a ratio with its interval (inverted for throughputs, so > 1 is always worse),
and "no channel above the noise floor" whenever no configuration is interference."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest

from xtalk.analysis.effects import Rules
from xtalk.analysis.kinds import KINDS, MetricInfo
from xtalk.analysis.search import NONE_ABOVE, search_outcome

STUDY = {"kind": "search"}


@dataclass
class FakeContext:
    values: dict
    kind: str = "duration"
    rules: Rules = field(default_factory=Rules)
    rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(0))

    @property
    def infos(self):
        return {"m": MetricInfo("m", "cycles", KINDS[self.kind], "application", True)}

    def primary_values(self, cid: str, metric: str) -> list[float]:
        return self.values[cid]


def row(cid: str, role: str, multiplier: float, verdict: str, channel: str | None = None) -> dict:
    return {"channel": channel or ("worst found" if role == "found" else "x"), "role": role, "tested": True, "config_id": cid, "metric": "m", "verdict": verdict,
            "multiplier": multiplier, "multiplier_ci": None, "stressor": {"bench": "b", "params": {}}, "better": "lower"}


def test_the_found_neighbour_twice_as_bad_as_the_best_default():
    ctx = FakeContext({"found": [200.0, 202.0, 198.0, 201.0, 199.0], "d1": [100.0, 101.0, 99.0, 100.5, 99.5],
                       "d2": [90.0, 91.0, 89.0, 90.5, 89.5]})
    rows = [row("found", "found", 2.0, "interference"), row("d1", "default", 1.0, "no-interference", "llc"),
            row("d2", "default", 0.9, "no-interference", "l2")]
    out = search_outcome(STUDY, rows, ctx)
    vs = out["against_best_default"]
    assert out["best_default"]["channel"] == "llc" and vs["verdict"] == "different"
    assert vs["ratio"] == pytest.approx(2.0, rel=0.01) and vs["ratio_ci"][0] > 1.9
    assert "worse than the best channel default (llc)" in out["conclusion"]


def test_a_throughput_halved_is_a_ratio_of_two():
    ctx = FakeContext({"found": [50.0, 51.0, 49.0, 50.5, 49.5], "d1": [100.0, 101.0, 99.0, 100.5, 99.5]},
                      kind="throughput")
    rows = [row("found", "found", 0.5, "interference"), row("d1", "default", 1.0, "no-interference")]
    assert search_outcome(STUDY, rows, ctx)["against_best_default"]["ratio"] == pytest.approx(2.0, rel=0.01)


def test_nothing_above_the_floor_is_said_so_whatever_the_ratio():
    ctx = FakeContext({"found": [100.0, 101.0], "d1": [100.0, 99.0]})
    rows = [row("found", "found", 1.0, "no-interference"), row("d1", "default", 1.0, "inconclusive")]
    out = search_outcome(STUDY, rows, ctx)
    assert out["conclusion"].startswith(NONE_ABOVE) and out["above_noise"] == []
    assert search_outcome({"kind": "channels"}, rows, ctx) is None


def test_a_found_neighbour_that_is_a_default_is_named_so_and_compared_with_the_other_defaults():
    ctx = FakeContext({"membw": [200.0, 202.0, 198.0, 201.0, 199.0], "llc": [190.0, 230.0, 170.0, 210.0, 195.0]})
    rows = [row("membw", "found", 2.0, "interference", "membw"), row("llc", "default", 1.9, "interference", "llc")]
    out = search_outcome(STUDY, rows, ctx)
    assert out["found"]["channel"] == "membw"
    assert ("the found neighbour (membw's default) and the best other channel default (llc) are not told apart"
            in out["conclusion"]), out["conclusion"]
