"""`xtalk compare`'s answer first (report/compare_page.py, analysis/comparison.py): the
sentence and counts name the campaigns in the order given (A first), the verdict table
comes before the warnings, which are grouped per kind with a count and folded, and the
box plot shows both sides in the report's time unit, each side's ticks converted with its
own counter frequency."""
import html
import re

import numpy as np
import pytest

from tests.framework.synthetic import heavy_tail, write_campaign, write_run
from xtalk.analysis.comparison import Group, compare_campaigns
from xtalk.analysis.pipeline import Options, analyze
from xtalk.report import compare_page
from xtalk.report.plots.common import Context
from xtalk.results.store import CampaignStore

NOISY = {"measurer": {"bench": "qsort", "cpus": [0]},
         "noise": {"noisy_cpus": ["0"], "threshold_pct": 5, "cpus": {"0": {"foreign_pct": 100.1}}}}


def campaign(tmp_path, name: str, runs: int, freq_hz: float, factor: float = 1.0):
    """`runs` runs of a 2 µs duration (times `factor`), counted at `freq_hz`; every run's
    measured CPU flagged as busy with other work (one noise flag per run)."""
    ids = [f"solo-r{i}" for i in range(runs)]
    path = write_campaign(tmp_path / name, name, {"matrix": {"placement": ["solo"]}}, ids)
    ticks = 2000 * factor * freq_hz / 1e9
    for i, rid in enumerate(ids):
        write_run(path, rid, {"placement": "solo"}, 2000, heavy_tail(ticks, ticks / 20), metric="work",
                  freq_hz=freq_hz, seed=i, index=i, extra_meta=NOISY)
    return analyze(CampaignStore(path), Options(evt=False, extras=False))


@pytest.fixture(scope="module")
def sides(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cmp")
    a = Group([campaign(tmp, "xen", 5, 2.5e9)])
    b = Group([campaign(tmp, "kvm", 3, 2.5e9, factor=1.3)])
    return a, b, compare_campaigns(a, b), tmp


def test_the_sentence_and_the_counts_name_the_campaigns_in_the_order_given(sides):
    _, _, cmp, _ = sides
    (row,) = cmp["rows"]
    assert row["verdict"] == "different" and row["change_pct"] == pytest.approx(30, abs=3)  # B against A
    assert row["sentence"].startswith("xen vs kvm (solo): work median 2.")
    assert "(5 vs 3 runs)" in row["sentence"] and row["units"] == [5, 3]
    (table, *_) = compare_page.tables(cmp)
    assert table.title == "A = xen (native) → B = kvm (native)"
    assert table.rows[0][table.headers.index("p (units)")].endswith("(5 vs 3 runs)")


def test_the_page_opens_with_the_verdicts_and_folds_the_warnings_per_kind(sides):
    a, b, cmp, _ = sides
    groups = {"a": compare_page.side_doubts(a.campaigns[0].result),
              "b": compare_page.side_doubts(b.campaigns[0].result)}
    (noise_a,) = [d for d in groups["a"] if d.title.startswith("host noise: CPU 0")]
    assert len(noise_a.items) == 5 and not noise_a.links  # the report's anchors are not on this page
    page = compare_page.page(cmp, compare_page.tables(cmp), [], groups)
    flag = "run solo-r0: CPU 0 spent 100 % of the run on work outside it"  # 100.1 measured: capped
    assert page.index('id="compare"') < page.index("xen vs kvm (solo)") < page.index('id="doubts"') \
        < page.index(flag)
    assert "xen</b> (native): campaign xen, 5 of 5 runs passed</li>" in page and "NO GATES" not in page
    assert f"{html.escape(noise_a.title)}: 5" in page and page.count(flag) == 2  # once per side, each behind a click
    for item in re.findall(r"<li>run solo-r0: CPU 0[^<]*</li>", page):
        opened = page.rfind("<details>", 0, page.index(item))
        assert opened > page.rfind("</details>", 0, page.index(item))


def test_the_box_plot_shows_both_sides_in_the_reports_time_unit_each_from_its_own_clock(sides):
    a, b, cmp, tmp = sides
    slower_clock = Group([campaign(tmp, "kvm-1ghz", 3, 1e9, factor=1.3)])
    unit = Context.of(a.campaigns[0]).unit("work")
    assert unit.name == "µs"
    (stream_a,), (stream_b,) = a.streams("solo", "work"), slower_clock.streams("solo", "work")
    median_a, median_b = (float(np.median(compare_page.in_unit(s, unit))) for s in (stream_a, stream_b))
    assert median_a == pytest.approx(2.2, rel=0.1) and median_b / median_a == pytest.approx(1.3, rel=0.05)
    assert compare_page.box_plot(cmp, a, b, "work", unit)[:4] == b"\x89PNG"


def test_the_verdict_compares_times_each_from_its_own_clock(sides):
    """A slower counter counts fewer ticks for the same time: +30 % in time is +30 %, not
    the ticks' -48 % (2.5 GHz against 1 GHz)."""
    a, _, _, tmp = sides
    slower_clock = Group([campaign(tmp, "kvm-1ghz-v", 3, 1e9, factor=1.3)])
    (row,) = compare_campaigns(a, slower_clock)["rows"]
    assert row["change_pct"] == pytest.approx(30, abs=3) and row["ns_per_tick"] == 1.0
    assert "work median 2." in row["sentence"]
