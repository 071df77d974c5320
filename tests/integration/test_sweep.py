"""Seed 004's sweep end to end on QEMU, at reduced size: experiments/seed004_memcpy_sweep.toml
with four small copy sizes (cache units of this host) and one to three memcpy guests, one
repetition each (what is checked is the plot and its sizes, not the verdicts: one run a
side is too few for one, and the report says so); every run passes and records the sizes
in bytes, each instance is its own guest, and the report has the slowdown-versus-size plot
(one line per number of interferers), embedded in report.html, which renders in headless
Chromium. About 30 s on a 2-CPU host."""
from __future__ import annotations

import json
import re
import shutil

import pytest
from PIL import Image

from tests.framework.browser import dump_dom, external_refs, screenshot
from tests.framework.cli import campaign_dir, write_spec, xtalk
from tests.framework.repo import ROOT
from xtalk.host.metadata import host_facts
from xtalk.report.plots.sweep import sweeps
from xtalk.spec.sizes import host_caches

pytestmark = pytest.mark.skipif(shutil.which("qemu-system-x86_64") is None,
                                reason="qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)")

SIZES = ["l1/2", "l2/2", "l2*4", "llc/32"]
REDUCED = ("--set", "run.repetitions=1", "--set", "run.duration_s=1", "--set", "run.start_gap_s=20")


def reduced_spec(tmp_path):
    text = (ROOT / "experiments" / "seed004_memcpy_sweep.toml").read_text()
    text, n = re.subn(r'^"stressors\.copy\.params\.size" = .*$', f'"stressors.copy.params.size" = {json.dumps(SIZES)}',
                      text, flags=re.M)
    assert n == 1
    return write_spec(tmp_path, text)


@pytest.mark.slow
def test_reduced_memcpy_sweep_has_its_slowdown_versus_size_plot(tmp_path, chromium):
    out = tmp_path / "out"
    res = xtalk("run", reduced_spec(tmp_path), "--out", out, "--report", "--json", *REDUCED, timeout=600)
    assert res.returncode == 0, res.stderr
    summary = json.loads(res.stdout)
    assert summary["runs"] == summary["passed"] == 1 + 4 * 3
    caches = host_caches(host_facts())
    factor = {"l1/2": caches["l1"] / 2, "l2/2": caches["l2"] / 2, "l2*4": caches["l2"] * 4, "llc/32": caches["llc"] / 32}
    runs = campaign_dir(out) / "runs"
    three = json.loads((runs / "other-core_size-llcdiv32_instances-3-r1" / "meta.json").read_text())
    # no `xtalk host caches` in this results directory: the sizes this host reports (spec/run_caches.py)
    assert three["sizes"]["stressors.copy.params.size"] == {"text": "llc/32", "bytes": int(factor["llc/32"]),
                                                            "source": "reported"}
    assert three["caches"]["source"] == "reported"
    assert sorted(three["stressors_watch"]) == ["copy", "copy-2", "copy-3"]
    assert all(w["alive"] for w in three["stressors_watch"].values())

    report = campaign_dir(out) / "report"
    (sweep,) = sweeps(json.loads((report / "report.json").read_text()))
    assert list(sweep.lines) == ["1 × copy", "2 × copy", "3 × copy"]
    for points in sweep.lines.values():
        assert sorted((p.text, p.bytes) for p in points) == sorted((t, int(b)) for t, b in factor.items())
    html = (report / "report.html").read_text()
    plot = report / "plots" / "sweep-pointer_chase.png"
    assert plot.is_file()
    assert len(re.findall(r'<img [^>]*src="data:image/png;base64,', html)) == len(list(plot.parent.glob("*.png")))
    assert html.index('id="plot-headline"') < html.index('id="plot-sweep-pointer_chase"') < html.index('id="doubts"')
    assert external_refs(html) == []
    shot = tmp_path / "shot.png"
    screenshot(chromium, report / "report.html", shot, tmp_path / "chrome", size="1280,2400")
    shutil.copy(shot, ROOT / "build" / "seed004-sweep-first-screen.png")  # to look at
    with Image.open(shot) as im:
        assert im.convert("L").getextrema()[0] < 100
    dom = dump_dom(chromium, report / "report.html", tmp_path / "chrome2")
    assert "pointer_chase: change versus stressors.copy.params.size" in dom
    assert re.search(r"other-core, 3 × copy, copy size l2\*4 \(\d+(\.\d)? MiB\)", dom)
