"""`xtalk report` and `xtalk compare` on a small real native campaign; the HTML report
rendered by headless Chromium (screenshot + DOM), checked for every plot and for being
self-contained (no external resource)."""
from __future__ import annotations

import json
import re

import pytest

from tests.framework.browser import dump_dom, external_refs, layout, screenshot
from tests.framework.cli import campaign_dir, write_spec, xtalk

SPEC = """
name = "rep"
cpus = [0, 1]
[run]
duration_s = 3
grace_s = 5
[measurer]
bench = "qsort"
iterations = 40
params = { size_kib = 256 }
[[stressors]]
name = "thrash"
bench = "cache_thrash"
params = { size = "4m" }
[matrix]
placement = ["solo", "same-core"]
start_order = ["stressor-first"]
[[deadlines]]
metric = "qsort"
ns = 1_000_000
[[gates]]
metric = "qsort"
stat = "median"
max_increase_pct = 100000
[[gates]]
metric = "qsort"
stat = "max"
max_cycles = 1
"""

TIMELINE = """
name = "tl"
cpus = [0, 1]
[run]
duration_s = 4
grace_s = 5
[measurer]
bench = "pointer_chase"
params = { size = "8m", steps = 16384 }
[[stressors]]
name = "thrash"
bench = "cache_thrash"
[matrix]
placement = ["other-core"]
[[timeline]]
at_s = 1.3
action = "start"
target = "thrash"
[[timeline]]
at_s = 2.6
action = "stop"
target = "thrash"
"""

@pytest.fixture(autouse=True)
def built(native_bench):
    return native_bench


def test_report_of_a_native_campaign_renders_in_chromium(tmp_path, chromium):
    out = tmp_path / "out"
    res = xtalk("run", write_spec(tmp_path, SPEC), "--out", out)
    assert res.returncode == 1, res.stdout + res.stderr  # the max_cycles=1 gate fails
    camp = campaign_dir(out)
    dest = tmp_path / "report"
    res = xtalk("report", camp.name, "--out", out, "--dest", dest)
    assert res.returncode == 1, res.stdout + res.stderr
    assert "gates:      FAIL: 1 of 2 failed" in res.stdout and "same-core: qsort median" in res.stdout
    for name in ("report.html", "report.md", "report.json", "stats.csv", "samples.parquet", "junit.xml"):
        assert (dest / name).is_file(), name
    html = (dest / "report.html").read_text()
    plots = sorted((dest / "plots").glob("*.png"))
    imgs = re.findall(r'<img [^>]*src="data:image/png;base64,[A-Za-z0-9+/=]{200,}"', html)
    assert len(plots) >= 4 and len(imgs) == len(plots)  # headline, distribution, time, exceedance
    assert external_refs(html) == []
    data = json.loads((dest / "report.json").read_text())
    assert [g["passed"] for g in data["gates"]] == [True, False] and data["overall"] == "FAIL"
    assert {r["config_id"] for r in data["stats"]} == {"solo", "same-core"}

    shot = tmp_path / "shot.png"
    screenshot(chromium, dest / "report.html", shot, tmp_path / "chrome")
    from PIL import Image
    with Image.open(shot) as im:
        assert im.size == (1400, 6000)
        gray = im.convert("L")
        assert gray.getextrema()[0] < 100  # something dark was drawn, not a blank page
    dom = dump_dom(chromium, dest / "report.html", tmp_path / "chrome2")
    assert len(re.findall(r"<img ", dom)) == len(plots)
    assert "xtalk report: rep" in dom

    res = xtalk("compare", camp, camp, "--out", out, "--dest", tmp_path / "cmp")
    assert res.returncode == 0, res.stderr
    cmp_html = (tmp_path / "cmp" / "compare.html").read_text()
    assert external_refs(cmp_html) == [] and len(re.findall(r'src="data:image/png', cmp_html)) == 2
    rows = json.loads((tmp_path / "cmp" / "compare.json").read_text())["rows"]
    assert rows and {r["verdict"] for r in rows} <= {"no-difference", "inconclusive"}  # a campaign against itself
    assert res.stdout.index("A → B") < res.stdout.index(rows[0]["sentence"][:40]) \
        < res.stdout.index("What makes a number doubtful")  # the terminal: the answer, then the doubts counted
    compare_first_screen(chromium, tmp_path / "cmp" / "compare.html", tmp_path)


def compare_first_screen(chromium, page, tmp_path):
    """compare.html on a 1366x768 screen: the verdict table first, whole on the first screen,
    above every warning (which sit folded further down); its verdict cells drawn there."""
    where = layout(chromium, page, tmp_path / "chrome3", {"verdicts": "#compare + .scroll table",
                                                          "doubts": "ul.doubts li, ul.doubts details"})
    assert where["verdicts"][1] <= where["viewport"][1], where
    assert where["doubts"] is None or where["verdicts"][1] < where["doubts"][0], where
    shot = tmp_path / "compare-first-screen.png"
    screenshot(chromium, page, shot, tmp_path / "chrome4", size="1366,768")
    from PIL import Image
    with Image.open(shot) as im:
        colors = {c for _, c in im.convert("RGB").getcolors(1 << 20)}
    assert colors & {(0xFF, 0xE0, 0xB2), (0xC8, 0xE6, 0xC9)}  # an inconclusive or no-difference cell shows


def test_timeline_campaign_gets_segments_an_event_zoom_and_interactive_plots_offline(tmp_path, chromium):
    out = tmp_path / "out"
    res = xtalk("run", write_spec(tmp_path, TIMELINE), "--out", out)
    assert res.returncode == 0, res.stdout + res.stderr
    res = xtalk("report", campaign_dir(out), "--dest", tmp_path / "r", "--no-samples", "--json")
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    (tl,) = data["timelines"]
    assert [s["label"] for s in tl["segments"]] == ["before", "thrash on", "after"]
    assert all(s["n"] > 0 for s in tl["segments"])
    assert tl["events"] == 2 and all("nearest_change_s" in t for t in tl["transitions"])
    assert not (tmp_path / "r" / "samples.parquet").exists()
    plain = xtalk("report", campaign_dir(out), "--dest", tmp_path / "plain", "--no-samples", "--no-plots", "--json")
    assert plain.returncode == 0 and json.loads(plain.stdout) == data, plain.stderr  # the same answer, no plot drawn
    assert not list((tmp_path / "plain" / "plots").iterdir()) and list((tmp_path / "r" / "plots").glob("*.png"))
    plots = {p["id"]: p for p in json.loads((tmp_path / "r" / "plots.json").read_text())}
    (zoom,) = [p for p in plots.values() if p["kind"] == "eventzoom"]
    assert [a["x"] for a in zoom["axes"]] == ["time since the stressor was switched on (s)",
                                              "time since the stressor was switched off (s)"]
    page = tmp_path / "r" / "report.html"
    assert external_refs(page.read_text()) == []
    dom = dump_dom(chromium, page, tmp_path / "chrome", offline=True)
    charts = re.findall(r'<div class="xt-chart" id="[^"]+" data-rendered="yes">', dom)
    assert len(charts) == 1 and dom.count("<canvas") >= 1  # uPlot drew it, with no network
