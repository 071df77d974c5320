"""An instrument measures runs from outside the guests: sigrok's demo device (a real
libsigrok driver) captured through labgrid's SigrokDriver, from a labgrid place
exported on loopback (a coordinator and an exporter here) and as a device of this host.

The oracle: the demo's default logic pattern repeats every 64 samples, so its edges are
known; they are taken from a capture sigrok-cli makes directly (no labgrid, no xtalk)
and paired here by a plain loop. Every delay a campaign stores must be one of the
pattern's, in ns at the sample rate, each as often as the pattern has it, and its lost
responses the pattern's (on D0 -> D1 one stimulus in eight has no response before the next).
"""
from __future__ import annotations

import collections
import shutil
import subprocess

import pyarrow.parquet as pq
import pytest

from tests.framework.cli import OUTSIDE, campaign_dir, run_meta, write_spec, xtalk
from tests.framework.fleet_lab import FleetLab

pytestmark = pytest.mark.skipif(shutil.which("sigrok-cli") is None,
                                reason="sigrok-cli is not installed (make setup installs it)")

RATE = 100_000
PERIOD = 64  # samples of the demo's default logic pattern
SPEC = OUTSIDE + """[instrument]
kind = "sigrok"
stimulus = "D0"
response = "{response}"
samplerate_hz = 100000
[instrument.sigrok]
{device}
"""


def rises(levels: list[int]) -> list[int]:
    return [i for i in range(1, len(levels)) if levels[i] and not levels[i - 1]]


def pattern_period() -> tuple[collections.Counter, int]:
    """(delays in samples of one period's answered stimuli, counted; its lost ones), from
    three periods captured by sigrok-cli itself, the middle one judged."""
    out = subprocess.run(["sigrok-cli", "-d", "demo", "-C", "D0,D1", "--config", f"samplerate={RATE}",
                          "--samples", str(3 * PERIOD), "-O", "csv"], capture_output=True, text=True, check=True)
    rows = [line.split(",") for line in out.stdout.splitlines() if line and not line.startswith(";")][1:]
    stimuli, responses = rises([int(r[0]) for r in rows]), rises([int(r[1]) for r in rows])
    delays, lost = collections.Counter(), 0
    for here, after in zip(stimuli, stimuli[1:]):
        if PERIOD <= here < 2 * PERIOD:
            answer = [r for r in responses if here <= r < after]
            if answer:
                delays[answer[0] - here] += 1
            else:
                lost += 1
    return delays, lost


@pytest.fixture(scope="module")
def analyser_place(tmp_path_factory):
    lab = FleetLab(tmp_path_factory.mktemp("lab"), boards=0, places={"analyser": {"SigrokDevice": {"driver": "demo"}}})
    yield lab
    lab.close()


def test_a_place_s_logic_analyser_gives_exactly_the_pattern_s_delays_as_ns_samples(tmp_path, analyser_place):
    spec = write_spec(tmp_path, SPEC.format(response="D1", device=f'place = "analyser"\n'
                                            f'coordinator = "{analyser_place.address}"'))
    done = xtalk("run", spec, "--out", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    meta = run_meta(tmp_path / "out", "solo-r1")
    facts = meta["instrument"]
    metric = next(m for m in meta["metrics"].values() if m["name"] == "irq_latency")
    assert (metric["unit"], metric["kind"], metric["clock"]) == ("ns", "latency", "host")
    samples = pq.read_table(campaign_dir(tmp_path / "out") / "runs" / "solo-r1" / "samples.parquet").to_pydict()
    got = collections.Counter(v for v, m in zip(samples["value_ns"], samples["metric"]) if m == "irq_latency")
    times = [t for t, m in zip(samples["t_s"], samples["metric"]) if m == "irq_latency"]
    delays, lost = pattern_period()
    per_period = sum(delays.values()) + lost
    periods = facts["stimuli"] / per_period
    print(f"pattern: {dict(delays)} samples, {lost} lost a period; run: {dict(got)} ns, {facts['lost']} lost "
          f"of {facts['stimuli']} stimuli, aligned within {facts['align_ns'] / 1e6:.1f} ms")
    assert periods > 100  # a second at 100 kHz: some 1,560 periods
    assert set(got) == {d * 1e9 / RATE for d in delays}  # exactly the pattern's delays, in ns
    for d, n in delays.items():
        assert abs(got[d * 1e9 / RATE] - periods * n) <= 2  # as often (a period may be cut at either end)
    assert abs(facts["lost"] - periods * lost) <= 2 and facts["lost"] > 0
    assert facts["answered"] == sum(got.values()) and facts["resolution_ns"] == 1e9 / RATE
    assert 0 <= min(times) and max(times) <= 1.05  # the measured window, on the run's time axis
    assert (campaign_dir(tmp_path / "out") / "runs" / "solo-r1" / "instrument.sr").stat().st_size > 0
    assert "acquired: None" in analyser_place.client("-p", "analyser", "show")  # given back
    shown = xtalk("show", "outside/solo-r1", "--out", tmp_path / "out")
    assert f"{facts['lost']:,} lost responses (at " in shown.stdout
    report = xtalk("show", "outside", "--out", tmp_path / "out")
    assert "Instrument per run" in report.stdout and "lost responses" in report.stdout


def test_a_silent_response_channel_fails_the_run_naming_it_and_keeps_the_capture(tmp_path):
    """D7 of the demo's pattern never changes: a response pin that is not wired."""
    spec = write_spec(tmp_path, SPEC.format(response="D7", device='driver = "demo"'))
    done = xtalk("run", spec, "--out", tmp_path / "out")
    assert done.returncode == 3
    meta = run_meta(tmp_path / "out", "solo-r1")
    assert meta["status"] == "fail" and "no edge at all on the response channel D7" in meta["reason"]
    assert meta["instrument"]["stimuli"] > 0 and meta["instrument"]["answered"] == 0
    assert (campaign_dir(tmp_path / "out") / "runs" / "solo-r1" / "instrument.sr").is_file()


def test_a_response_alone_is_timed_against_a_period_with_no_stimulus_channel(tmp_path):
    """period_ns = the pattern's 64 samples, the response D0 (eight rising edges a period):
    one edge a period answers its grid point, at the same delay every period (the fastest:
    0), the other seven are unexpected, and no grid point goes without an edge."""
    text = SPEC.format(response="D0", device='driver = "demo"').replace(
        'stimulus = "D0"', f"period_ns = {PERIOD * 1_000_000_000 // RATE}")
    done = xtalk("run", write_spec(tmp_path, text), "--out", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    facts = run_meta(tmp_path / "out", "solo-r1")["instrument"]
    samples = pq.read_table(campaign_dir(tmp_path / "out") / "runs" / "solo-r1" / "samples.parquet").to_pydict()
    got = collections.Counter(v for v, m in zip(samples["value_ns"], samples["metric"]) if m == "irq_latency")
    levels = pattern_levels(0)
    rises = sum(1 for i in range(1, PERIOD + 1) if levels[i] and not levels[i - 1])
    print(f"run: {dict(got)} ns, {facts['answered']} answered, {facts['unexpected_responses']} unexpected, "
          f"{facts['lost']} lost, {facts['outside_window']} outside the window, {rises} rises a period")
    assert set(got) == {0} and facts["answered"] > 100 and facts["lost"] == 0
    periods = facts["answered"] + facts["outside_window"]  # unexpected edges are counted over the whole capture
    assert abs(facts["unexpected_responses"] - periods * (rises - 1)) <= 2 * rises  # a period cut at either end
    assert facts["stimulus"] == "every 640,000 ns (no channel)"


def pattern_levels(channel: int) -> list[int]:
    """Two periods and a sample of one channel of the demo's pattern, as sigrok-cli captures it."""
    out = subprocess.run(["sigrok-cli", "-d", "demo", "-C", f"D{channel}", "--config", f"samplerate={RATE}",
                          "--samples", str(2 * PERIOD + 1), "-O", "csv"], capture_output=True, text=True, check=True)
    return [int(line) for line in [x for x in out.stdout.splitlines() if x and not x.startswith(";")][1:]]
