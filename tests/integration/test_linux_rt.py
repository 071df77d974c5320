"""The Linux-RT image (images/linux-rt) built from Debian packages and booted under
QEMU TCG: the build is cached by content hash, every suite benchmark runs in the
guest, cyclictest's output is parsed, a starved thread-metric thread fails the run, and
a campaign through the qemu backend gets its samples through the shared-memory ring
(x86: memmap=, arm64: mem=) with the image hash in each run's metadata. The gate (`make
test`) boots it once (cyclictest); the rest is `make test-all`'s (marked full)."""
from __future__ import annotations

import json
import shutil

import pytest

from tests.framework.cli import campaign_dir, run_meta, write_spec, xtalk
from tests.framework.linux_rt_boot import boot
from tests.framework.probe_boot import native_dhrystone_checksum
from tests.framework.linux_rt_checks import (PROBE_BENCHES, check_cyclictest, check_hackbench, check_kernel_ops,
                                   check_probe_bench, check_thread_metric, report)
from xtalk.images import linux_rt

pytestmark = [
    pytest.mark.slow,
    pytest.mark.tcg,
    pytest.mark.skipif(shutil.which("qemu-system-x86_64") is None,
                       reason="qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)"),
    pytest.mark.skipif(shutil.which("apt-get") is None or shutil.which("dpkg-deb") is None,
                       reason="the image is built from Debian packages: needs apt-get and dpkg-deb"),
]


@pytest.fixture(scope="module")
def image():
    return linux_rt.build("x86_64", log=lambda msg: None)


@pytest.mark.full
def test_second_build_with_the_same_inputs_is_a_cache_hit(image):
    first = linux_rt.build("x86_64", force=True, log=lambda msg: None)     # really builds
    assert not first.cached and first.hash == image.hash
    proc = xtalk("images", "build", "linux-rt", "--arch", "x86_64")
    assert proc.returncode == 0, proc.stderr
    assert f"cached {first.hash}" in proc.stdout
    again = json.loads(xtalk("images", "build", "linux-rt", "--json").stdout)
    assert again["cached"] and again["hash"] == first.hash and again["seconds"] < 30
    manifest = first.manifest
    assert manifest["inputs"]["kernel"]["package"].startswith("linux-image-") and "-rt-" in manifest["inputs"]["kernel"]["package"]
    assert {"busybox-static", "rt-tests", "stress-ng", "libc6"} <= set(manifest["inputs"]["packages"])
    assert {"/bin/busybox", "/usr/bin/cyclictest", "/usr/bin/hackbench", "/usr/bin/stress-ng"} <= set(manifest["files"])


def test_cyclictest_in_the_guest(image):
    text = boot("bench=cyclictest duration_s=1 interval_us=2000", run="ct")
    values = check_cyclictest(text, "ct")
    rep, _ = report(text, "ct")
    assert rep.meta["ct_realtime"] == "1"            # cyclictest saw a PREEMPT_RT kernel
    assert len(values) > 300


@pytest.mark.full
def test_kernel_ops_in_the_guest(image):
    check_kernel_ops(boot("bench=kernel_ops iterations=10", run="ko"), "ko", iterations=10)


@pytest.mark.full
@pytest.mark.parametrize("bench,threads", [("tm_preempt", 5), ("tm_coop", 5), ("tm_interrupt", 1),
                                           ("tm_message", 1), ("tm_sync", 1), ("tm_memory", 1)])
def test_thread_metric_in_the_guest(image, bench, threads):
    rows = check_thread_metric(boot(f"bench={bench} interval_s=0.5 duration_s=1", run="tm"), "tm", bench, threads)
    assert all(row[0] > 0 for row in rows)


PROBE_PARAMS = {"dhrystone": "loops=2000", "cachebench": "size_kib=64 sample_kib=1024", "stream": "size=3m"}


@pytest.mark.full
@pytest.mark.parametrize("bench", sorted(PROBE_BENCHES))
def test_seed003_probe_bench_in_the_guest(image, bench):
    """Seed 003's guests were Linux: its probe benches run in the Linux-RT guest too, the
    probe's code on xtalk-rt's environment; dhrystone does there what it does natively."""
    text = boot(f"bench={bench} {PROBE_PARAMS[bench]} iterations=3", run="pb")
    values = check_probe_bench(text, "pb", bench, 3)
    print(f"linux-rt tcg {bench}: " + ", ".join(f"{k} {max(v):,}" for k, v in values.items()))
    if bench == "dhrystone":
        assert report(text, "pb")[0].meta["checksum"] == native_dhrystone_checksum(2000)


@pytest.mark.full
def test_hackbench_in_the_guest(image):
    """rt-tests' hackbench, seed 003's task-dispatch benchmark (1 x 40 tasks, processes)."""
    values = check_hackbench(boot("bench=hackbench iterations=3 loops=20", run="hb"), "hb", 3, 40)
    print(f"linux-rt tcg hackbench 1x40 tasks, 20 loops: {[v / 1e6 for v in values]} ms")


@pytest.mark.full
def test_starved_thread_fails_fairness_in_the_guest(image):
    text = boot("bench=tm_preempt interval_s=0.5 duration_s=1 starve=2", run="st")
    rows = check_thread_metric(text, "st", "tm_preempt", 5, status="fail")
    rep, _ = report(text, "st")
    assert "fairness" in rep.end["reason"] and all(row[3] == 0 for row in rows)


CAMPAIGN = """
name = "lrt"
cpus = [0, 1]
[backend]
kind = "qemu"
image = "linux-rt"
arch = "{arch}"
[run]
duration_s = 3
boot_timeout_s = 90
start_gap_s = {gap}
[measurer]
bench = "tm_preempt"
params = {{ interval_s = 1 }}
[[stressors]]
name = "stress"
bench = "stress_ng"
params = {{ class = "cpu" }}
[matrix]
placement = {placements}
start_order = ["stressor-first"]
"""


def campaign(tmp_path, arch="x86_64", placements='["solo", "same-core"]', gap=4):
    out = tmp_path / "out"
    spec = write_spec(tmp_path, CAMPAIGN.format(arch=arch, placements=placements, gap=gap))
    proc = xtalk("run", spec, "--out", out, timeout=280)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return out


TWO_VCPUS = """
name = "rt2"
cpus = [0, 1]
[backend]
kind = "qemu"
image = "linux-rt"
memory_mib = 256
[run]
duration_s = 2
pilot = true
grace_s = 20
boot_timeout_s = 120
[measurer]
bench = "cyclictest"
vcpus = 2
"""


@pytest.mark.full
def test_a_guest_of_two_vcpus_runs_a_cyclictest_thread_on_each(tmp_path, image):
    out = tmp_path / "out"
    res = xtalk("run", write_spec(tmp_path, TWO_VCPUS), "--out", out)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr
    meta = run_meta(out, "solo-r1")
    assert [(v["vcpu"], v["cpu"]) for v in meta["guests"]["measurer"]["vcpus"]] == [(0, 0), (1, 1)]
    assert {m["name"] for m in meta["metrics"].values()} == {"cyclictest_t0", "cyclictest_t1"}
    console = (campaign_dir(out) / "runs" / "solo-r1" / "console" / "measurer.log").read_text()
    assert "-t2" in console and "-a0,1" in console  # a thread per vCPU, each on its own


@pytest.mark.full
def test_campaign_through_the_qemu_backend_uses_the_ring(tmp_path, image):
    out = campaign(tmp_path)
    for run_id in ("solo-r1", "same-core-r1"):
        meta = run_meta(out, run_id)
        assert meta["status"] == "pass", meta["reason"]
        backend = meta["backend_metadata"]
        assert backend["image_kind"] == "linux-rt" and backend["image_hash"] == image.hash
        if backend["accel"] == "tcg":
            assert backend["accel_reason"]
        console = (campaign_dir(out) / "runs" / run_id / "console" / "measurer.log").read_text()
        assert "XT SAMPLE" not in console and "ring_error" not in console    # samples came by the ring
        assert meta["sample_count"] == 3 * 6 and meta["ring_lost_samples"] == 0
    stress = (campaign_dir(out) / "runs" / "same-core-r1" / "console" / "stress.log").read_text()
    assert "XT BEGIN" in stress and "stress-ng --cpu 1" in stress
    assert xtalk("show", "lrt", "--out", out).returncode == 0


@pytest.mark.full
@pytest.mark.skipif(shutil.which("qemu-system-aarch64") is None, reason="qemu-system-aarch64 is not installed")
def test_arm64_guest_ring_at_the_top_of_ram(tmp_path):
    out = campaign(tmp_path, arch="arm64", placements='["solo"]')
    meta = run_meta(out, "solo-r1")
    assert meta["status"] == "pass", meta["reason"]
    assert meta["backend_metadata"]["ring_gpa"] == hex(0x40000000 + (256 << 20) - (4 << 20))
    assert meta["sample_count"] == 18 and meta["guest_begin"]["arch"] == "arm64"
