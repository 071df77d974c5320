"""Results stored by an older xtalk stay readable: the version-3 campaigns in
tests/data/campaign-v3 (a native run and an import, README.md there) load through the
store as the current format, and `show` and `report` work on them as on new ones."""
from __future__ import annotations

import json
import shutil

import pytest

from xtalk.results.records import SCHEMA_VERSION
from xtalk.results.store import CampaignStore
from tests.framework.cli import xtalk
from tests.framework.repo import ROOT
from tests.framework.result_contract import check_result

V3 = ROOT / "tests" / "data" / "campaign-v3"


@pytest.fixture(params=["native", "imported"])
def campaign(request, tmp_path):
    """A copy of one stored campaign (the report is written into it)."""
    return shutil.copytree(V3 / request.param, tmp_path / request.param)


def test_a_version_3_campaign_loads_as_the_current_format(campaign):
    on_disk = json.loads(next(campaign.glob("runs/*/meta.json")).read_text())
    assert on_disk["schema_version"] == 3 and SCHEMA_VERSION > 3
    index = CampaignStore(campaign).index()
    assert not index.damaged
    assert sorted(r.meta["run_id"] for r in index.runs) == ["same-core-r1", "same-core-r2", "solo-r1", "solo-r2"]
    assert all(r.meta["schema_version"] == SCHEMA_VERSION and r.meta["status"] == "pass" for r in index.runs)


@pytest.mark.slow
def test_show_and_report_read_a_version_3_campaign(campaign):
    shown = xtalk("show", campaign, "--json")
    assert shown.returncode == 0, shown.stderr
    data = json.loads(shown.stdout)
    assert not data["left_out"] and {s["config_id"] for s in data["stats"]} == {"solo", "same-core"}
    verdicts = {v["config_id"]: v["verdict"] for v in data["verdicts"]}
    assert verdicts["solo"] == "baseline"
    if campaign.name == "native":  # a cache thrasher on the measurer's core, as `xtalk run` said then
        assert verdicts["same-core"] == "interference"
    report = xtalk("report", campaign, "--no-plots")  # its tables and JSON; the plots: test_report.py
    assert report.returncode == 0, report.stderr
    assert "same-core" in (campaign / "report" / "report.html").read_text()
    check_result(json.loads((campaign / "report" / "report.json").read_text()))
