"""Guest images of the user's, booted by the backends (docs/guests.md): xtalk's Linux-RT
kernel with an appended init that prints raw cyclictest output and powers off
(tests/framework/foreign_image.py), read by the `cyclictest` parser, is the measurer of a campaign
on qemu x86-64 (TCG; KVM where KVM runs a guest kernel), qemu arm64 (TCG) and the arm64
Xen lab, solo and next to a same-core xtalk probe stressor. Every run passes with
cyclictest_t0 statistics in `xtalk show --json`, the report renders, and each run's
metadata has the image's sha256. Also: the probe's multiboot ELF booted as an image of
the user's under KVM and read with the spec's own `regex`; an image that prints nothing
fails its run with the reason; a foreign stressor whose output is ignored is watched like
any stressor. Timings are emulation; what is checked is the mechanics. The Linux images
are `make test-all`'s (marked full); the gate keeps the ELF under KVM.
"""
from __future__ import annotations

import hashlib
import json
import shutil

import pytest

from tests.framework import foreign_image
from tests.framework.cli import campaign_dir, run_meta, write_spec, xtalk
from tests.framework.repo import ROOT
from tests.framework.xen_lab import LAB_GROUP, xtalk_domains
from xtalk.host.metadata import host_facts

QEMU = {"x86_64": "qemu-system-x86_64", "arm64": "qemu-system-aarch64"}
pytestmark = [pytest.mark.skipif(shutil.which("apt-get") is None or shutil.which("dpkg-deb") is None,
                                 reason="the Linux-RT image is built from Debian packages: needs apt-get and dpkg-deb")]

CAMPAIGN = """
name = "foreign"
cpus = [{cpus}]
[backend]
kind = "{kind}"
{backend}
[run]
duration_s = 4
grace_s = 30
boot_timeout_s = 120
[measurer]
{measurer}
[[stressors]]
name = "thrash"
bench = "cache_thrash"
params = {{ size = "1m" }}
[matrix]
placement = {placements}
start_order = ["stressor-first"]  # the neighbour runs before the measurer boots (xl create takes seconds)
"""


def needs(binary: str) -> None:
    if shutil.which(binary) is None:
        pytest.skip(f"{binary} is not installed: QEMU cannot boot this image here")


IMAGES = {"x86_64": ("x86_64", foreign_image.cyclictest(2)), "arm64": ("arm64", foreign_image.cyclictest(2)),
          "silent": ("x86_64", foreign_image.SILENT), "hog": ("x86_64", foreign_image.HOG)}


@pytest.fixture(scope="module")
def image(tmp_path_factory):
    """name -> its ForeignImage (IMAGES: cyclictest for 2 s on each arch, a silent one, a
    CPU hog), made when first asked for."""
    dest, made = tmp_path_factory.mktemp("images"), {}

    def get(name: str) -> foreign_image.ForeignImage:
        if name not in made:
            arch, command = IMAGES[name]
            made[name] = foreign_image.build(arch, dest, name, command)
        return made[name]
    return get


def sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def cyclictest_measurer(image: foreign_image.ForeignImage, kind: str) -> str:
    return (f'bench = "cyclictest"\noutput = "cyclictest"\nimage = "{image.kernel}"\ninitrd = "{image.initrd}"\n'
            f'append = "{image.append(kind)}"')


def spec(tmp_path, measurer: str, kind="qemu", backend="", cpus="0, 1", placements='["solo", "same-core"]'):
    return write_spec(tmp_path, CAMPAIGN.format(cpus=cpus, kind=kind, backend=backend, measurer=measurer,
                                                placements=placements))


def run_campaign(tmp_path, image, kind="qemu", backend="", cpus="0, 1"):
    """The cyclictest campaign of image on a backend, which must pass: its output dir."""
    out = tmp_path / "out"
    res = xtalk("run", spec(tmp_path, cyclictest_measurer(image, kind), kind, backend, cpus), "--out", out, timeout=900)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-3000:]
    return out


def check_campaign(out, image, placements=("solo", "same-core"), report=False, watched=True) -> dict[str, dict]:
    """Every run passed with cyclictest samples from the image named in its metadata; the
    statistics (and the report, where asked: it does not depend on the backend) are those
    of any campaign. watched: the stressor's exposure is known (not in the Xen lab, where
    an `xl list` reading takes longer than cyclictest's 2 s)."""
    metas = {p: run_meta(out, f"{p}-r1") for p in placements}
    for placement, meta in metas.items():
        console = (campaign_dir(out) / "runs" / f"{placement}-r1" / "console" / "measurer.log").read_text()
        why = f"{placement}: {meta['reason']} ({meta['sample_count']} samples); console ends: {console[-300:]!r}"
        assert meta["status"] == "pass", why
        assert meta["measurer"]["image_sha256"] == sha256(image.kernel)
        assert meta["measurer"]["initrd_sha256"] == sha256(image.initrd)
        assert [(m["name"], m["unit"]) for m in meta["metrics"].values()] == [("cyclictest_t0", "ns")]
        assert meta["sample_count"] > 50, why
        assert meta["guest_meta"].get("t0.prio") == "90", why  # cyclictest's own summary, read by the parser
        if placement == "same-core":
            assert meta["guests"]["thrash"]["affinity"] == meta["guests"]["measurer"]["affinity"]
            watch = meta["stressors_watch"]["thrash"]
            assert watch["alive"] and (not watched or watch["exposure"] >= 0.9), watch
        assert "XT " not in console and "T: 0 (" in console, why  # raw cyclictest output, nothing of xtalk's
    shown = json.loads(xtalk("show", "foreign", "--out", out, "--json").stdout)
    assert {(s["config_id"], s["metric"]) for s in shown["stats"]} == {(p, "cyclictest_t0") for p in placements}
    assert all(s["n"] > 50 and s["ns_per_tick"] == 1 and 0 < s["median_ns"] for s in shown["stats"]), shown["stats"]
    if report:
        res = xtalk("report", "foreign", "--out", out, "--dest", out / "report")
        assert res.returncode == 0, res.stderr
        assert "cyclictest_t0" in (out / "report" / "report.html").read_text()
    return metas


@pytest.mark.full
@pytest.mark.slow
@pytest.mark.tcg
def test_qemu_x86_64_tcg(tmp_path, image):
    needs(QEMU["x86_64"])
    metas = check_campaign(run_campaign(tmp_path, image("x86_64"), backend='accel = "tcg"'), image("x86_64"),
                           report=True)
    argv = metas["solo"]["guests"]["measurer"]["argv"]
    assert argv[argv.index("-M") + 1] == "pc" and argv[argv.index("-accel") + 1] == "tcg"
    assert not any("memory-backend" in a or "isa-debug-exit" in a for a in argv)
    assert metas["solo"]["backend_metadata"]["foreign_accel"] == "tcg"


@pytest.mark.full
@pytest.mark.slow
@pytest.mark.kvm
def test_qemu_x86_64_kvm(tmp_path, image):
    needs(QEMU["x86_64"])
    kvm = host_facts()["kvm"]
    if not kvm["available"]:
        pytest.skip(f"no usable KVM here: {kvm['reason']}")
    if kvm.get("emulates_ring0"):
        pytest.skip(f"/dev/kvm is {kvm['kind']}: it emulates guest ring 0 and stops a Linux kernel with a KVM "
                    "internal error (cmpxchg16b), so no guest kernel runs under it here")
    metas = check_campaign(run_campaign(tmp_path, image("x86_64"), backend='accel = "kvm"'), image("x86_64"))
    assert metas["solo"]["backend_metadata"]["foreign_accel"] == "kvm"


@pytest.mark.full
@pytest.mark.slow
@pytest.mark.tcg
def test_qemu_arm64_tcg(tmp_path, image):
    needs(QEMU["arm64"])
    metas = check_campaign(run_campaign(tmp_path, image("arm64"), backend='arch = "arm64"'), image("arm64"))
    argv = metas["solo"]["guests"]["measurer"]["argv"]
    assert argv[0] == QEMU["arm64"] and argv[argv.index("-M") + 1] == "virt,gic-version=3"
    assert metas["solo"]["backend_metadata"]["foreign_accel"] == "tcg"


@pytest.mark.full
@pytest.mark.slow
@pytest.mark.xen
@LAB_GROUP["arm64"]
def test_xen_lab_arm64(arm64_lab, tmp_path, image):
    arm64 = image("arm64")
    metas = check_campaign(run_campaign(tmp_path, arm64, kind="xen", backend='executor = "lab"\narch = "arm64"',
                                        cpus="1, 2"), arm64, watched=False)
    for meta in metas.values():
        backend = meta["backend_metadata"]
        files = backend["foreign_images"]
        assert files[str(arm64.kernel)]["sha256"] == sha256(arm64.kernel)
        config = backend["domains"]["measurer"]["config"]
        assert f'kernel = "{files[str(arm64.kernel)]["dom0_path"]}"' in config
        assert f'ramdisk = "{files[str(arm64.initrd)]["dom0_path"]}"' in config
        assert 'cmdline = "console=hvc0 quiet panic=-1"' in config and "memory = 256" in config
        assert "bench=" not in config  # nothing of xtalk's in the user's domain
    assert "bench=cache_thrash" in metas["same-core"]["backend_metadata"]["domains"]["thrash"]["config"]
    assert xtalk_domains(arm64_lab) == []


REGEX = """
bench = "qsort"
image = "{image}"
append = "bench=qsort run=mine role=measurer iterations=20 size_kib=64"
output = "regex"
[measurer.parser]
begin = '^XT BEGIN '
sample = '^XT SAMPLE .* value=(?P<value>\\d+)'
metric = "qsort"
unit = "cycles"
end = '^XT END '
"""


@pytest.mark.slow
@pytest.mark.kvm
def test_an_elf_of_the_users_under_kvm_read_with_the_specs_regex(tmp_path):
    """The probe's 32-bit multiboot ELF (what Zephyr's qemu_x86_64 builds) booted as an
    image of the user's on pc under KVM: no xtalk command line but the spec's `append`, no
    ring (it prints its samples), read with a regex; a probe stressor on its core."""
    needs(QEMU["x86_64"])
    kvm = host_facts()["kvm"]
    if not kvm["available"]:
        pytest.skip(f"no usable KVM here: {kvm['reason']}")
    shutil.copy(ROOT / "build" / "x86_64" / "xtalk-probe.elf", tmp_path / "myrtos.elf")
    out = tmp_path / "out"
    backend = 'accel = "kvm"\nextra_args = ["-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]'  # it ends sooner
    res = xtalk("run", spec(tmp_path, REGEX.format(image="myrtos.elf"), backend=backend), "--out", out)
    assert res.returncode == 0, res.stderr
    for placement in ("solo", "same-core"):
        meta = run_meta(out, f"{placement}-r1")
        assert meta["status"] == "pass" and meta["sample_count"] == 20, meta["reason"]
        assert meta["guests"]["measurer"]["accel"] == "kvm" and meta["measurer"]["output"] == "regex"
        assert meta["metrics"]["0"]["unit"] == "cycles"
    stats = json.loads(xtalk("show", "foreign", "--out", out, "--json").stdout)["stats"]
    assert {(s["config_id"], s["metric"], s["n"]) for s in stats} == {("solo", "qsort", 20), ("same-core", "qsort", 20)}


@pytest.mark.full
@pytest.mark.slow
def test_an_image_that_prints_nothing_fails_its_run_with_the_reason(tmp_path, image):
    needs(QEMU["x86_64"])
    out = tmp_path / "out"
    res = xtalk("run", spec(tmp_path, cyclictest_measurer(image("silent"), "qemu"), placements='["solo"]'),
                "--out", out, timeout=600)
    assert res.returncode == 3, res.stderr  # a failed run: the campaign itself went through
    meta = run_meta(out, "solo-r1")
    assert meta["status"] == "fail" and meta["sample_count"] == 0
    assert meta["reason"].startswith("the guest printed nothing the output 'cyclictest' parser recognises (console: "), \
        meta["reason"]
    assert meta["measurer"]["image_sha256"] == sha256(image("silent").kernel)


HOG = """
name = "foreign"
cpus = [0, 1]
[backend]
kind = "qemu"
[run]
duration_s = 3
[measurer]
bench = "qsort"
params = {{ size_kib = 64 }}
[matrix]
placement = ["same-core"]
[[stressors]]
name = "hog"
bench = "busy_loop"
image = "{image.kernel}"
initrd = "{image.initrd}"
append = "{append}"
output = "ignore"
[[timeline]]
at_s = 1.0
action = "pause"
target = "hog"
[[timeline]]
at_s = 2.0
action = "resume"
target = "hog"
"""


@pytest.mark.full
@pytest.mark.slow
def test_a_foreign_stressor_with_ignored_output_is_watched_like_any_stressor(tmp_path, image):
    """A probe measurer next to a Linux image that spins (output ignored) on its core: the
    stressor's CPU time is watched (exposure, its share of the core) and the timeline's
    pause and resume are checked to have taken effect on it."""
    needs(QEMU["x86_64"])
    hog = image("hog")
    out = tmp_path / "out"
    res = xtalk("run", write_spec(tmp_path, HOG.format(image=hog, append=hog.append("qemu"))), "--out", out)
    assert res.returncode == 0, res.stderr
    meta = run_meta(out, "same-core-r1")
    assert meta["status"] == "pass", meta["reason"]
    watch = meta["stressors_watch"]["hog"]
    assert watch["alive"] and watch["exposure"] >= 0.9 and 0 < watch["cpu_share"] < 1, watch
    assert [(e["action"], e["took_effect"]) for e in watch["timeline"]] == [("pause", True), ("resume", True)], watch
    stressor = meta["stressors"][0]
    assert stressor["output"] == "ignore" and stressor["image_sha256"] == sha256(hog.kernel)
    assert meta["guests"]["hog"]["accel"] == "tcg" or not host_facts()["kvm"].get("emulates_ring0")
