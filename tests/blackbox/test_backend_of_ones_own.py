"""A backend outside xtalk (tests/framework/echo_backend.py, one file) found the way a
user's installed backend is: an entry point in the group `xtalk.backends`; it runs a
campaign end to end through the real `xtalk` command (spec check, plan, runs, results,
analysis), and no file of xtalk names it."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.framework.repo import ROOT
from tests.framework.echo_backend import echo_distribution

SPEC = """
name = "echoed"
cpus = [0, 1]
[backend]
kind = "echo"
[run]
duration_s = 5
grace_s = 5
pilot = true
[measurer]
bench = "qsort"
iterations = 20
params = { size_kib = 64 }
[[stressors]]
name = "thrash"
bench = "cache_thrash"
params = { size = "1m" }
[matrix]
placement = ["solo", "other-core"]
"""


def xtalk(*args, pythonpath: list[str]) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([*pythonpath, os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-m", "xtalk.cli.main", *map(str, args)], capture_output=True, text=True,
                          timeout=300, env=env)


def test_a_backend_of_ones_own_registers_from_one_file_and_runs_a_campaign(tmp_path, native_bench):
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC)
    unknown = xtalk("spec", "check", spec, pythonpath=[str(ROOT)])  # not installed: xtalk does not know it
    assert unknown.returncode == 2 and "unknown backend 'echo' (known: native, qemu, xen)" in unknown.stderr
    installed = [str(echo_distribution(tmp_path / "site")), str(ROOT)]
    check = xtalk("spec", "check", spec, pythonpath=installed)
    assert check.returncode == 0 and "backend echo" in check.stdout, check.stderr
    out = tmp_path / "out"
    res = xtalk("run", spec, "--out", out, "--json", pythonpath=installed)
    assert res.returncode == 0, res.stderr
    summary = json.loads(res.stdout)
    assert summary["runs"] == 2 and summary["passed"] == 2, summary
    (campaign,) = [p for p in out.iterdir() if (p / "campaign.json").is_file()]
    for run in ("solo-r1", "other-core-r1"):
        meta = json.loads((campaign / "runs" / run / "meta.json").read_text())
        assert meta["status"] == "pass" and meta["sample_count"] == 20 and meta["lost_samples"] == 0, meta
        assert meta["backend_metadata"]["backend"] == "echo"
        assert meta["guests"]["measurer"]["affinity"] == [0]
    shown = xtalk("show", "echoed", "--out", out, "--json", pythonpath=installed)
    stats = {r["config_id"]: r for r in json.loads(shown.stdout)["stats"]}
    assert set(stats) == {"solo", "other-core"} and all(s["n"] == 20 for s in stats.values()), stats
