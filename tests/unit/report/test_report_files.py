"""report/: every output file of a synthetic campaign's report, and the compare page."""
import csv
import gc
import json
import re
import xml.etree.ElementTree as ET

import pyarrow.parquet as pq
from matplotlib.figure import Figure

from tests.framework.browser import external_refs
from tests.framework.campaigns import gated_campaign
from xtalk.analysis.comparison import Group, compare_campaigns
from xtalk.analysis.pipeline import analyze
from xtalk.report import compare_page
from xtalk.report.build import EXPORT_BATCH, export_samples, write_report
from tests.framework.store_data import campaign_of_format, meta, new_store, samples


def test_report_files(tmp_path):
    store = gated_campaign(tmp_path)
    analysis = analyze(store)
    gc.collect()
    paths = write_report(analysis, tmp_path / "rep")
    assert not [o for o in gc.get_objects() if isinstance(o, Figure)]  # each plot's figures freed once drawn
    html = paths["html"].read_text()
    imgs = re.findall(r'<img [^>]*src="data:image/png;base64,[A-Za-z0-9+/=]+"', html)
    pngs = sorted(p.name for p in paths["plots"].glob("*.png"))
    assert len(imgs) == len(pngs) >= 5
    assert {"headline.png", "distribution-m.png", "rampup-m.png", "timeseries-m.png", "exceedance-m.png"} <= set(pngs)
    assert external_refs(html) == []
    for word in ("What makes a number doubtful", "guest fault", "Statistics per configuration", "Largest samples",
                 "pWCET", "FAIL", "Glossary", "noise floor", 'id="xt-series"'):
        assert word in html, word
    # the answer comes first: the verdict table and the headline plot before any warning
    assert html.index('id="answer"') < html.index('id="plot-headline"') < html.index('id="doubts"')
    md = paths["markdown"].read_text()
    assert "| config | runs | metric | n |" in md and "(plots/distribution-m.png)" in md
    meta = {p["id"]: p for p in json.loads(paths["plots_json"].read_text())}
    for ident in ("distribution-m", "timeseries-m", "rampup-m", "exceedance-m"):
        labels = [a["x"] + " " + a["y"] for a in meta[ident]["axes"]]
        assert all(re.search(r"\((ns|µs|ms|s)\)", text) for text in labels), (ident, labels)
    assert "change" in meta["headline"]["axes"][0]["x"] and "%" in meta["headline"]["axes"][0]["x"]
    data = json.loads(paths["json"].read_text())
    assert data["overall"] == "FAIL" and len(data["stats"]) == 2
    rows = list(csv.DictReader(open(paths["csv"])))
    assert len(rows) == 2 + 4 and {r["scope"] for r in rows} == {"config", "run"}
    suite = ET.parse(paths["junit"]).getroot().find("testsuite")
    assert suite.get("tests") == "2" and suite.get("failures") == "1"
    assert len(suite.findall("testcase/failure")) == 1
    assert pq.read_metadata(paths["parquet"]).num_rows == 4 * 5000 + 100


def test_samples_export_streams_every_row_in_order_whatever_the_row_groups(tmp_path):
    store = new_store(tmp_path, runs=("solo-r1", "solo-r2"))
    for run_id, n in (("solo-r1", 3), ("solo-r2", EXPORT_BATCH + 7)):
        w = store.start_run(meta(run_id))
        w.samples(samples(range(n)))
        w.finish("pass")
    old = store.run_dir("solo-r2") / "samples.parquet"  # one row group, as an older xtalk wrote it
    pq.write_table(pq.read_table(old), old, row_group_size=EXPORT_BATCH + 7, compression="zstd")
    record = old.with_name("meta.json")  # and without a manifest (format 5), as it wrote it: not damaged
    record.write_text(json.dumps({**{k: v for k, v in json.loads(record.read_text()).items()
                                     if k not in ("files", "record_sha256", "checked")}, "schema_version": 5}))
    store = campaign_of_format(store, 5)  # format 5 had neither
    assert export_samples(store.index().sample_files(), tmp_path / "all.parquet") == EXPORT_BATCH + 10
    pf = pq.ParquetFile(tmp_path / "all.parquet")
    assert max(pf.metadata.row_group(i).num_rows for i in range(pf.metadata.num_row_groups)) <= EXPORT_BATCH
    table = pf.read().to_pydict()
    assert table["value"] == [0, 1, 2, *range(EXPORT_BATCH + 7)]
    assert table["run_id"] == ["solo-r1"] * 3 + ["solo-r2"] * (EXPORT_BATCH + 7)



def test_samples_export_gathers_short_runs_into_one_row_group(tmp_path):
    """A row group a run made the export of 10,000 short runs slow: they share one."""
    runs = ("solo-r1", "solo-r2", "solo-r3", "solo-r4")
    store = new_store(tmp_path, runs=runs)
    for i, run_id in enumerate(runs):
        w = store.start_run(meta(run_id))
        w.samples(samples(range(10 * i, 10 * i + 10)))
        w.finish("pass")
    assert export_samples(store.index().sample_files(), tmp_path / "all.parquet") == 40
    pf = pq.ParquetFile(tmp_path / "all.parquet")
    assert pf.metadata.num_row_groups == 1
    assert pf.read().to_pydict()["value"] == list(range(40))

def test_compare_page(tmp_path):
    a = Group([analyze(gated_campaign(tmp_path / "a"))])
    b = Group([analyze(gated_campaign(tmp_path / "b", n=4000))])
    cmp = compare_campaigns(a, b)
    assert {r["config_id"] for r in cmp["rows"]} == {"solo", "same-core"}
    same = next(r for r in cmp["rows"] if r["config_id"] == "same-core")
    assert same["a_vs_baseline"]["change_pct"] > 50 and same["b_vs_baseline"]["change_pct"] > 50
    # the same generator in A and B, two runs each: never called different
    assert {r["verdict"] for r in cmp["rows"]} <= {"no-difference", "inconclusive"}
    tabs = compare_page.tables(cmp)
    groups = {"a": compare_page.side_doubts(a.campaigns[0].result), "b": compare_page.side_doubts(b.campaigns[0].result)}
    html = compare_page.page(cmp, tabs, compare_page.plots(cmp, a, b), groups)
    assert len(re.findall(r'src="data:image/png;base64,', html)) == 2 and external_refs(html) == []


def test_report_of_degenerate_campaigns(tmp_path):
    from tests.framework.synthetic import heavy_tail, write_campaign, write_run
    from xtalk.results.store import CampaignStore
    empty = write_campaign(tmp_path / "e", "e", {}, ["solo-r1"])
    write_run(empty, "solo-r1", {"placement": "solo"}, 10, heavy_tail(), status="fail")
    paths = write_report(analyze(CampaignStore(empty)), tmp_path / "re")
    assert "run status fail" in paths["html"].read_text()
    noclock = write_campaign(tmp_path / "n", "n", {}, ["solo-r1", "same-core-r1"])
    for i, rid in enumerate(("solo-r1", "same-core-r1")):
        write_run(noclock, rid, {"placement": rid[:-3]}, 3000, heavy_tail(1000 + 500 * i), metric=("a", "b"),
                  clock=False, index=i)
    paths = write_report(analyze(CampaignStore(noclock)), tmp_path / "rn")
    names = {p.name for p in paths["plots"].glob("*.png")}
    assert {"distribution-a.png", "distribution-b.png", "exceedance-a.png"} <= names
    assert "timeseries-a.png" not in names  # no sample times: no time plot


def test_every_glossary_term_is_in_the_docs():
    from tests.framework.repo import ROOT
    from xtalk.report.glossary import TERMS
    text = (ROOT / "docs" / "report.md").read_text()
    assert [t for t in TERMS if f"| {t} |" not in text] == []


def test_overhead_is_in_the_answer_and_has_its_section_plot_and_table(tmp_path):
    from tests.framework.campaigns import overhead_campaign
    paths = write_report(analyze(overhead_campaign(tmp_path, 1.3)), tmp_path / "rep", samples=False)
    html, md = paths["html"].read_text(), paths["markdown"].read_text()
    assert "what the neighbours and the hypervisor change" in html
    answer = html[html.index('id="answer"'):html.index('id="doubts"')]
    assert answer.index("vs native") < answer.index('id="overhead-answer"') < answer.index('id="plot-overhead"')
    assert '<td class="verdict voverhead"' in answer and "(medium): overhead</td>" in answer
    assert 'id="overhead"' in html[html.index('id="doubts"'):]  # the table with every number
    assert "| work | qemu | vs native | median |" in md and "(plots/overhead.png)" in md  # its label (configs.py)
    assert json.loads(paths["json"].read_text())["overhead"][0]["verdict"] in ("baseline", "overhead")
    assert 'id="exposure"' not in html  # no stressor ran: no empty exposure table
