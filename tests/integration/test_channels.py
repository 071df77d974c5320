"""The channel study as a user runs it (`xtalk channels`), natively and on QEMU: qsort and
pointer_chase next to each channel's default stressor on the other core. Every channel
ends with a multiplier and its interval or with the reason it was not exercised; the
report shows the table and evidence.json leads each number back to stored runs; natively
each stressor's achieved pressure is also given as a share of what it reaches alone. Reduced
size (2 runs of 0.5 s a configuration): the figures of the closing note come from
experiments/channels.toml."""
from __future__ import annotations

import json
import math

import pytest

from tests.framework.backends import SLOW_ON_QEMU
from tests.framework.cli import write_spec, xtalk
from tests.framework.specs import MEASURER_ONLY
from xtalk.interference.names import CHANNELS


# What 2 runs against 2 can give on this host. pointer_chase's working set fits the shared
# L3, and whoever evicts it (the llc, membw and memlat stressors, and in some runs another
# tenant of the cloud host) makes it ~10-14x slower: measured in one CI campaign, natively,
# 50 against 590-780 ms in 7 of 16 runs (one solo), and on QEMU both solo runs at 389 and
# 435 ms against ~48 ms. So its multiplier ranges from ~0.07 to ~15 at 2 runs a side: no
# bound but its sign holds there. qsort's 256 KiB stay in the core's own L2 (0.90-1.09).
PLAUSIBLE = {"qsort": (0.5, 2), "pointer_chase": (0, math.inf)}

BOTH = 'params = { qsort = { size_kib = 256 } }\n[matrix]\n"measurer.bench" = ["qsort", "pointer_chase"]'


pytestmark = pytest.mark.usefixtures("native_bench")  # the native programs, built once


# each multiplier is a ratio of measured times, bounded (PLAUSIBLE): alone (beside another test's
# campaigns qsort's membw multiplier was 2.21 in one CI run)
@pytest.mark.timing
@pytest.mark.slow
@pytest.mark.parametrize("backend", SLOW_ON_QEMU)
def test_every_channel_has_a_multiplier_or_a_reason(tmp_path, backend):
    out = tmp_path / "out"
    alone = backend == "native"  # each stressor alone first: measured natively only, for time
    path = write_spec(tmp_path, MEASURER_ONLY.format(name="chan", backend=backend, bench="qsort", rest=BOTH))
    res = xtalk("channels", path, "--out", out, "--runs", "2", "--placement", "other-core", "--json",
                *(() if alone else ("--no-reach",)),
                timeout=600)
    assert res.returncode == 0, res.stderr
    rows = json.loads(res.stdout)
    for channel in CHANNELS:
        mine = [r for r in rows if r["channel"] == channel.name]
        if not mine[0]["tested"]:
            assert len(mine) == 1 and mine[0]["reason"], mine
            continue
        assert {r["metric"] for r in mine} == {"qsort", "pointer_chase"}, mine
        for r in mine:
            lo, hi = r["multiplier_ci"]
            assert 0 <= lo <= r["multiplier"] <= hi < math.inf and r["multiplier"] > 0, r
            low, high = PLAUSIBLE[r["metric"]]
            assert low < r["multiplier"] < high, r
            assert r["verdict"] in ("interference", "no-interference", "inconclusive"), r
            assert len(r["runs"]) == 2 and len(r["baseline_runs"]) == 2, r
            assert r["pressure"]["rate"] > 0, r  # every default stressor is a probe bench: it counts its passes
            # alone on its core it reaches about what it reaches on the other core next to the measurer
            assert not alone or r["pressure"]["alone"] > 0 and 0.2 < r["pressure"]["of_alone"] < 5, r
    untested = {r["channel"] for r in rows if not r["tested"]}
    assert "interconnect" in untested and ("hv" in untested) == (backend == "native")
    (campaign,) = [p for p in out.iterdir() if p.name.startswith("chan-channels-")]
    html = (campaign / "report" / "report.html").read_text()
    assert "Interference channels" in html
    evidence = json.loads((campaign / "report" / "evidence.json").read_text())
    assert {c["channel"] for c in evidence["channels"]} == {c.name for c in CHANNELS}
    assert evidence["images"] and evidence["hypervisor"]["backend"]["kind"] == backend
    for item in evidence["channels"]:
        assert item["stressor"] is None or len(item["stressor"]["hash"]) == 64
        for sample in (item.get("evidence") or {}).get("samples", []):
            assert (campaign / sample).exists(), sample
