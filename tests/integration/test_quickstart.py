"""The README demo's campaign, at reduced size (--set), end to end on QEMU: every run
passes and its report renders in headless Chromium with every plot embedded."""
from __future__ import annotations

import json
import re
import shutil

import pytest
from PIL import Image

from tests.blackbox.browser import dump_dom, external_refs, screenshot
from tests.blackbox.cli import campaign_dir, xtalk
from tests.conftest import ROOT

pytestmark = pytest.mark.skipif(shutil.which("qemu-system-x86_64") is None,
                                reason="qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)")


def test_reduced_quickstart_runs_and_its_report_renders(tmp_path, chromium):
    out = tmp_path / "out"
    res = xtalk("run", ROOT / "experiments" / "quickstart.toml", "--out", out, "--report", "--json",
                "--set", "run.repetitions=1", "--set", "run.duration_s=1.5")
    assert res.returncode == 0, res.stderr
    summary = json.loads(res.stdout)
    assert summary["runs"] == 9 and summary["passed"] == 9
    page = campaign_dir(out) / "report" / "report.html"
    assert summary["report"] == str(page)
    html = page.read_text()
    plots = sorted((page.parent / "plots").glob("*.png"))
    assert len(plots) >= 3 * 5  # three measurers, at least five plots each
    assert len(re.findall(r'<img [^>]*src="data:image/png;base64,', html)) == len(plots)
    assert external_refs(html) == []
    shot = tmp_path / "shot.png"
    screenshot(chromium, page, shot, tmp_path / "chrome", size="1400,9000")
    with Image.open(shot) as im:
        assert im.convert("L").getextrema()[0] < 100
    dom = dump_dom(chromium, page, tmp_path / "chrome2")
    assert len(re.findall(r"<img ", dom)) == len(plots)
    for metric in ("qsort", "pointer_chase", "hidden_latency"):
        assert f"{metric}: Distribution per configuration" in dom
