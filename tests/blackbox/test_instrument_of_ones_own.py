"""An instrument outside xtalk (tests/framework/loopback_instrument.py, one file) found
the way a user's installed one is, by an entry point: a native campaign with it stores
every delay it timed as the instrument's samples and its own facts in meta.json (a key
no instrument of xtalk has), and no file of xtalk names it."""
from __future__ import annotations

import os
import subprocess
import sys

import pyarrow.parquet as pq

from tests.framework.cli import OUTSIDE, campaign_dir, run_meta, write_spec
from tests.framework.loopback_instrument import loopback_distribution
from tests.framework.repo import ROOT

SPEC = (OUTSIDE + """[instrument]
kind = "loopback"
stimulus = "A"
response = "B"
samplerate_hz = 1000000
[instrument.loopback]
delay_us = 40
""").format()  # OUTSIDE is a template


def xtalk(*args, pythonpath: list[str]) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([*pythonpath, os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-m", "xtalk.cli.main", *map(str, args)], capture_output=True, text=True,
                          timeout=300, env=env)


def test_an_instrument_of_ones_own_registers_from_one_file_and_measures_a_run(tmp_path, native_bench):
    spec = write_spec(tmp_path, SPEC)
    unknown = xtalk("spec", "check", spec, pythonpath=[str(ROOT)])  # not installed: xtalk does not know it
    assert unknown.returncode == 2 and "unknown instrument 'loopback'" in unknown.stderr, unknown.stderr
    out = tmp_path / "out"
    res = xtalk("run", spec, "--out", out, pythonpath=[str(loopback_distribution(tmp_path / "site")), str(ROOT)])
    assert res.returncode == 0, res.stdout + res.stderr
    (run_id,) = [p.name for p in (campaign_dir(out) / "runs").iterdir()]
    meta = run_meta(out, run_id)
    facts = meta["instrument"]
    assert facts["kind"] == "loopback" and facts["device"] == "loopback" and facts["delay_samples"] == 40, facts
    assert facts["answered"] > 100 and facts["lost"] == 0, facts  # a stimulus every ms over the measurer's ~1 s
    samples = pq.read_table(campaign_dir(out) / "runs" / run_id / "samples.parquet").to_pydict()
    delays = {v for v, m in zip(samples["value_ns"], samples["metric"]) if m == "irq_latency"}
    assert delays == {40_000.0}
