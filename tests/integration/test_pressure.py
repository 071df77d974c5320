"""Each stressor reports the pressure it achieved (src/xtalk/running/pressure.py), natively and on
QEMU: a cache thrasher and a spinner share the other core next to a measurer for about
1.5 s, and meta.json says how many bytes/s the one stored and how many ops/s the other
did over the measured window; `xtalk show` prints them. Plausible bounds only: this
host is shared, so a rate is checked to be real work (over 10 MB/s of memset), not a
figure."""
from __future__ import annotations


import pytest

from tests.framework.backends import BACKENDS
from tests.framework.cli import run_meta, write_spec, xtalk


SPEC = """
name = "pressure"
cpus = [0, 1]
[backend]
kind = "{backend}"
[run]
duration_s = 1.5
grace_s = 10
[measurer]
bench = "qsort"
params = {{ size_kib = 256 }}
[[stressors]]
name = "thrash"
bench = "cache_thrash"
params = {{ size = "16m" }}
[[stressors]]
name = "spin"
bench = "cpu_spin"
[matrix]
placement = ["other-core"]
start_order = ["stressor-first"]
"""


pytestmark = pytest.mark.usefixtures("native_bench")  # the native programs, built once


@pytest.mark.parametrize("backend", BACKENDS)
def test_stressors_report_the_pressure_they_achieved(tmp_path, backend):
    out = tmp_path / "out"
    res = xtalk("run", write_spec(tmp_path, SPEC.format(backend=backend)), "--out", out, timeout=120)
    assert res.returncode == 0, res.stderr
    meta = run_meta(out, "other-core-r1")
    thrash, spin = meta["pressure"]["thrash"], meta["pressure"]["spin"]
    assert thrash["unit"] == "bytes/s" and thrash["work_per_pass"] == 16 << 20, thrash
    assert 1e7 < thrash["rate"] < 1e12 and thrash["passes"] > 0, thrash
    assert 1.0 < thrash["window_s"] < 10, thrash
    assert thrash["rate"] == pytest.approx(thrash["work_per_pass"] * thrash["passes"] / thrash["window_s"])
    assert spin["unit"] == "ops/s" and spin["work_per_pass"] == 1 << 20 and spin["rate"] > 0, spin
    print(f"\n{backend}: cache_thrash {thrash['rate']:.3g} bytes/s ({thrash['passes']} passes in "
          f"{thrash['window_s']:.2f} s), cpu_spin {spin['rate']:.3g} ops/s ({spin['passes']} passes)")
    shown = xtalk("show", "pressure/other-core-r1", "--out", out)
    assert shown.returncode == 0 and "bytes/s" in shown.stdout and "ops/s" in shown.stdout, shown.stdout
