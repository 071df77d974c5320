"""The slowdown-versus-size sweep (report/plots/sweep.py) and configuration labels
(report/configs.py) on a synthetic campaign: a memcpy size swept in cache units with one
and two interferers, against one solo baseline."""
import json

import pytest

from tests.framework.synthetic import heavy_tail, write_campaign, write_run
from xtalk.analysis.pipeline import Options, analyze
from xtalk.report.build import write_report
from xtalk.report.configs import labels, size_dims
from xtalk.report.plots.sweep import sweeps
from xtalk.results.store import CampaignStore

MIB = 1 << 20
CACHES = {"l1": 48 << 10, "l2": 2 * MIB, "l3": 480 * MIB, "llc": 480 * MIB, "source": "measurer"}
SIZES = {"l1/2": 24 << 10, "l2/2": MIB, "llc/2": 240 * MIB, "llc*1.25": 600 * MIB}
DIM, COUNT = "stressors.copy.params.size", "stressors.copy.instances"


def campaign(tmp_path, sizes: dict = SIZES, counts=(1, 2), runs: int = 3):
    """Solo at 1000 ticks; each configuration slower by (its size's rank + 1) x count x 10 %."""
    spec = {"matrix": {"placement": ["solo", "other-core"], DIM: list(sizes), COUNT: list(counts)}}
    configs = [("solo", {"placement": "solo", "start_order": "measurer-first"}, 1.0, {})]
    for rank, (text, nbytes) in enumerate(sizes.items()):
        for count in counts:
            cid = f"other-core_size-{text.replace('/', 'div').replace('*', 'x')}_instances-{count}"
            config = {"placement": "other-core", DIM: text, COUNT: count, "start_order": "measurer-first"}
            configs.append((cid, config, 1 + (rank + 1) * count / 10, {DIM: {"text": text, "bytes": nbytes}}))
    ids = [f"{cid}-r{r}" for r in range(1, runs + 1) for cid, *_ in configs]
    path = write_campaign(tmp_path / "c", "sweep", spec, ids)
    for i, rid in enumerate(ids):
        cid, config, factor, sizes_of = next(c for c in configs if rid.startswith(c[0] + "-r"))
        write_run(path, rid, config, 400, heavy_tail(1000 * factor, 20), seed=i, index=i, config_id=cid,
                  extra_meta={"caches": CACHES, "sizes": sizes_of})
    return analyze(CampaignStore(path), Options(evt=False, extras=False))


def test_labels_show_sizes_as_given_and_in_bytes(tmp_path):
    res = campaign(tmp_path).result
    named = labels(res)
    assert named["solo"] == "solo"
    assert named["other-core_size-llcdiv2_instances-2"] == "other-core, 2 × copy, copy size llc/2 (240 MiB)"
    assert named["other-core_size-l1div2_instances-1"] == "other-core, 1 × copy, copy size l1/2 (24 KiB)"
    assert size_dims(res) == [DIM]


def test_one_line_per_count_with_points_by_bytes_and_intervals(tmp_path):
    res = campaign(tmp_path).result
    (sweep,) = sweeps(res)
    assert (sweep.metric, sweep.dim, sweep.unit) == ("m", DIM, "%")
    assert list(sweep.lines) == ["1 × copy", "2 × copy"]
    assert sweep.caches == {"l1": 48 << 10, "l2": 2 * MIB, "l3": 480 * MIB}
    for count, points in zip((1, 2), sweep.lines.values()):
        assert [p.bytes for p in points] == sorted(SIZES.values())
        assert [p.text for p in points] == list(SIZES)
        expect = [(rank + 1) * count * 10 for rank in range(4)]
        assert [p.change for p in points] == pytest.approx(expect, rel=0.06)
        assert all(p.ci[0] < p.change < p.ci[1] for p in points)


def test_without_counts_one_line_and_without_sizes_no_sweep(tmp_path):
    (sweep,) = sweeps(campaign(tmp_path / "a", counts=(3,)).result)
    assert list(sweep.lines) == ["m"] and len(sweep.lines["m"]) == 4
    assert sweeps(campaign(tmp_path / "b", sizes={"llc": 480 * MIB}).result) == []


def test_the_sweep_plot_is_in_the_answer_section(tmp_path):
    analysis = campaign(tmp_path)
    paths = write_report(analysis, tmp_path / "rep", samples=False)
    html = paths["html"].read_text()
    assert (paths["plots"] / "sweep-m.png").is_file()
    assert html.index('id="plot-headline"') < html.index('id="plot-sweep-m"') < html.index('id="doubts"')
    assert "2 × copy, copy size llc/2 (240 MiB)" in html and "llc*1.25 (600 MiB)" in html
    axes = {p["id"]: p["axes"] for p in json.loads(paths["plots_json"].read_text())}["sweep-m"]
    assert axes[0]["xscale"] == "log" and "bytes" in axes[0]["x"] and "%" in axes[0]["y"]
