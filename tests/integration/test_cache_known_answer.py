"""A physical known answer for measured cache sizes (issue 41), natively: after `xtalk host
caches`, a pointer chase sized between the measured L2 and the measured shared level
(shared/2) is `interference` next to a memcpy on the other CPU sized to the shared level,
and a chase inside the measured L2 (l2/2) is not.

The answer holds while the two CPUs share the level. A cloud VM's host moves its vCPUs
between caches now and then (this project's 2-vCPU EPYC VM did, every few minutes): so
the sharing is measured right before the campaign and right after it, and the campaign's
other-core runs say whether they were all slowed or none. Where the level was not shared
all the time, the test says so and skips; where it was shared throughout and the chase
was not slowed, the measured sizes were wrong, and it fails.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from tests.framework.cli import write_spec, xtalk
from tests.framework.repo import ROOT
from xtalk.results.schema import SAMPLE_DTYPE

SPEC = """
name = "known-answer"
cpus = [0, 1]
[backend]
kind = "native"
[run]
duration_s = 1
repetitions = 5
[measurer]
bench = "pointer_chase"
[[stressors]]
name = "copy"
bench = "memcpy"
params = { size = "shared" }
[matrix]
"measurer.params.size" = ["l2/2", "shared/2"]
placement = ["solo", "other-core"]
start_order = ["stressor-first"]
"""


def shared_throughout(out) -> tuple[bool, str]:
    res = xtalk("host", "caches", ROOT / "experiments" / "caches.toml", "--backend", "native", "--out", out,
                "--json", timeout=120)
    assert res.returncode == 0, res.stderr
    (record,) = json.loads(res.stdout)
    last = record["levels"][-1]
    test = last.get("sharing") or {}
    return bool(test) and test["shared_pairs"] == test["pairs"], f"L{last['level']}: {test.get('ratios')}"


def medians(campaign, config: str) -> list[float]:
    out = []
    for run in sorted((campaign / "runs").glob(f"{config}-r*")):
        samples = np.fromfile(run / "samples.bin", dtype=SAMPLE_DTYPE)
        out.append(float(np.median(samples["value"])))
    return out


@pytest.mark.full
@pytest.mark.timing
@pytest.mark.slow
def test_a_chase_past_l2_is_slowed_through_the_measured_shared_level_and_one_inside_l2_is_not(tmp_path, native_bench):
    before, said_before = shared_throughout(tmp_path)
    if not before:
        pytest.skip(f"this host's first two CPUs did not share their last level in every pair ({said_before})")
    res = xtalk("run", write_spec(tmp_path, SPEC), "--out", tmp_path, "--json", timeout=300)
    assert res.returncode in (0, 1), res.stderr  # 1: interference found
    after, said_after = shared_throughout(tmp_path)
    campaign = next(p for p in tmp_path.iterdir() if p.name.startswith("known-answer"))
    alone, beside = medians(campaign, "size-shareddiv2_solo"), medians(campaign, "size-shareddiv2_other-core")
    slowed = [b > 1.5 * max(alone) for b in beside]
    if not after or 0 < sum(slowed) < len(slowed):
        pytest.skip(f"the sharing changed during the test: before {said_before}, after {said_after}; "
                    f"other-core runs slowed: {slowed}")
    meta = json.loads(next((campaign / "runs").glob("size-shareddiv2_other-core-r1/meta.json")).read_text())
    assert meta["caches"]["source"] == "measured" and meta["sizes"]["stressors.copy.params.size"]["source"] == "measured"
    report = json.loads(xtalk("report", campaign.name, "--out", tmp_path, "--json").stdout)
    verdict = {v["config_id"]: v["verdict"] for v in report["verdicts"] if v["metric"] == "pointer_chase"}
    assert verdict["size-shareddiv2_other-core"] == "interference", (verdict, alone, beside)
    assert verdict["size-l2div2_other-core"] != "interference", verdict
