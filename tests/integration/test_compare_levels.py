"""`xtalk compare` across campaigns, natively, the campaign a level of the design: a
planted difference (qsort over 512 against 256 KiB, about twice the time) is "different" with three campaigns a
side, and seen with one a side whose drift the stored replicates of the same spec measure; two
identical campaigns are not; the terminal and page say where the drift came from."""
from __future__ import annotations

import json

import pytest

from tests.framework.cli import write_spec, xtalk
from tests.framework.shared import made_once

SPEC = """
name = "{name}"
cpus = [0, 1]
[backend]
kind = "native"
[run]
duration_s = 0.4
repetitions = 3
start_gap_s = 0.05
[measurer]
bench = "qsort"
params = {{ size_kib = {kib} }}
"""


# the module's campaigns are measured once, at its first test: every test compares measured times
pytestmark = pytest.mark.timing


@pytest.fixture(scope="module")
def campaigns(tmp_path_factory):
    """Three campaigns of each spec, alternating, in one results directory, measured once for
    the test run (tests/framework/shared.py). The planted
    difference is about +100 %: +26 % (320 KiB) was once "inconclusive" in CI because one
    campaign of six ran 17 % slow on this shared host (drift sd 8.6 % on that side, Welch df
    2.3, floor ±50 % at alpha 0.01): the right answer for that drift, not what this test asks."""
    def measure(tmp):
        specs = {kib: write_spec(tmp, SPEC.format(name=f"q{kib}", kib=kib), f"q{kib}.toml") for kib in (256, 512)}
        ids: dict[int, list[str]] = {256: [], 512: []}
        for _ in range(3):
            for kib, spec in specs.items():
                res = xtalk("run", spec, "--out", tmp / "out", "--json")
                assert res.returncode == 0, res.stderr
                ids[kib].append(json.loads(res.stdout)["campaign"])
        return ids

    tmp, ids = made_once(tmp_path_factory, "compare-levels", measure)
    return tmp / "out", {int(kib): names for kib, names in ids.items()}


def compare(out, *names, extra=()):
    res = xtalk("compare", *names, "--out", out, "--json", *extra)
    assert res.returncode == 0, res.stderr
    (row,) = json.loads(res.stdout)["rows"]
    return row


def test_three_campaigns_a_side_find_the_planted_difference(campaigns):
    out, ids = campaigns
    row = compare(out, *ids[256], "vs", *ids[512])
    assert row["level"] == "campaigns" and row["units"] == [3, 3] and row["runs"] == [9, 9]
    assert row["verdict"] == "different", row["sentence"]
    assert row["ci95_pct"][0] > 5 and "t-test over campaigns (3 vs 3 campaigns, 9 vs 9 runs)" in row["sentence"]
    assert len(row["campaign_values"]["a"]) == len(row["campaign_values"]["b"]) == 3
    dest = out.parent / "page"
    res = xtalk("compare", *ids[256], "vs", *ids[512], "--out", out, "--dest", dest)
    assert res.returncode == 0, res.stderr
    page = (dest / "compare.html").read_text()
    # the box plot, the one-point-per-campaign plot (the drift, seen) and no other
    assert page.count('src="data:image/png;base64,') == 2 and "one point per campaign" not in res.stdout
    assert "drift between campaigns" in page and "q256 ×3" in page and all(i in page for i in ids[512])


def test_one_campaign_a_side_takes_the_drift_from_the_stored_replicates(campaigns):
    out, ids = campaigns
    row = compare(out, ids[256][0], ids[512][0])
    assert row["level"] == "campaigns" and row["drift"]["measured"] and row["drift"]["campaigns"] == [3, 3]
    # one campaign a side against replicates of 3 (df about 4): the +106 % measured here is seen, its
    # interval clear of zero; whether it clears the noise floor too depends on this host's drift
    assert row["verdict"] != "no-difference" and row["ci95_pct"][0] > 0 and 60 < row["change_pct"] < 160, \
        row["sentence"]
    res = xtalk("compare", ids[256][0], ids[512][0], "--out", out)
    assert res.returncode == 0 and "drift between campaigns" in res.stdout and "from 3 + 3" in res.stdout


def test_identical_campaigns_are_not_different_and_without_replicates_the_drift_is_assumed(campaigns):
    out, ids = campaigns
    row = compare(out, ids[256][0], ids[256][1])
    assert row["level"] == "campaigns" and row["verdict"] != "different", row["sentence"]
    alone = compare(out, ids[256][0], ids[256][1], extra=("--no-replicates",))
    assert alone["level"] == "runs" and not alone["drift"]["measured"] and alone["verdict"] != "different"
    assert "drift between campaigns not measured" in alone["sentence"]


def test_sides_must_be_named(campaigns):
    out, ids = campaigns
    res = xtalk("compare", ids[256][0], "--out", out)
    assert res.returncode == 2 and "name two campaigns (A B) or two sides" in res.stderr
    assert "Traceback" not in res.stderr
    res = xtalk("compare", ids[256][0], "vs", "--out", out)
    assert res.returncode == 2 and "CAMPAIGN" in res.stderr
