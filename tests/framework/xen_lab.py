"""The Xen lab's library for the xen tests (tests/integration/test_xen*.py, test_fleet_xen.py,
test_foreign_images.py): Debian's Xen 4.17 booted under QEMU (`xtalk lab start xen`), one
lab per architecture, booted once for the modules that want the same Xen and stopped after
the last of them (lab_fixture), campaign specs run through the real
CLI with executor = "lab", and what dom0 says about them (`xl list`, cpupools, console
followers). lab_fixture checks at the end that no domain xtalk created survives.
The fixtures the tests take (arm64_lab, x86_64_lab, rt_lab; conftest.py imports them) check
before each test that dom0 answers within HEALTH_S; a lab whose dom0 does not is stopped
and booted again once, so a frozen dom0 costs the test it froze in, not every test after it.
"""
from __future__ import annotations

import json
import shutil
import time
import warnings

import pytest

from tests.framework.cli import campaign_dir, wait_for, write_spec, xtalk

QEMU = {"arm64": "qemu-system-aarch64", "x86_64": "qemu-system-x86_64"}
# a host has one lab an arch: the tests that use it are one xdist group (one worker, in order)
LAB_GROUP = {arch: pytest.mark.xdist_group(f"xen-lab-{arch}") for arch in QEMU}

CAMPAIGN = """
name = "xq"
cpus = [1, 2]
[backend]
kind = "xen"
executor = "lab"
arch = "{arch}"
{backend}
[run]
duration_s = {duration}
grace_s = 40
boot_timeout_s = {boot_timeout}
start_gap_s = 0.5
repetitions = 1
{guests}
[matrix]
placement = {placements}
start_order = ["stressor-first"]
{matrix}
{timeline}
"""
PROBE_GUESTS = """
[measurer]
bench = "qsort"
params = { size_kib = 256 }
[[stressors]]
name = "thrash"
bench = "cache_thrash"
"""
LINUX_RT_GUESTS = """
[measurer]
bench = "cyclictest"
[[stressors]]
name = "stress"
bench = "stress_ng"
params = { class = "cpu", workers = 1 }
"""
DOM0_STRESSOR = """
[[stressors]]
name = "dom0"
bench = "stress_ng"
host = true
params = { class = "cpu" }
"""  # a CPU hog in dom0, on dom0's vCPU of the placement's pCPU
TIMELINE = """
[[timeline]]
at_s = 1.0
action = "pause"
target = "thrash"
[[timeline]]
at_s = 2.5
action = "resume"
target = "thrash"
"""


def campaign(tmp_path, arch: str, *, duration: float = 2, placements: str = '["solo"]', matrix: str = "",
             timeline: str = "", backend: str = "", boot_timeout: float = 90, guests: str = PROBE_GUESTS):
    """CAMPAIGN for arch written to tmp_path (backend: extra [backend] lines): (spec, out dir)."""
    text = CAMPAIGN.format(arch=arch, duration=duration, placements=placements, matrix=matrix,
                           timeline=timeline, backend=backend, boot_timeout=boot_timeout, guests=guests)
    return write_spec(tmp_path, text), tmp_path / "out"


def lab_exec(arch: str, *argv: str, timeout: float = 120):
    res = xtalk("lab", "exec", "--arch", arch, "--", *argv, timeout=timeout)
    assert res.returncode == 0, f"{argv}: {res.stderr}"
    return res.stdout


def xtalk_domains(arch: str) -> list[str]:
    names = [line.split()[0] for line in lab_exec(arch, "xl", "list").splitlines()[1:] if line.split()]
    return [n for n in names if n.startswith("xtalk-")]


def followers(arch: str) -> list[str]:
    """Console followers (`tail -F` of guest logs) still running in dom0."""
    return [line for line in lab_exec(arch, "ps", "-o", "pid,args").splitlines()
            if "tail -c +1 -F /var/log/xen/console/guest-xtalk-" in line]


def measurer_running(arch: str, what: str = "the measurer domain") -> str:
    """The name of the first xtalk measurer domain, once its console shows XT BEGIN."""
    victim = wait_for(lambda: [d for d in xtalk_domains(arch) if d.endswith("-measurer")], 120, what)[0]
    # xenconsoled makes the log only once the console connects: until then, no text (not an error)
    log = f"/var/log/xen/console/guest-{victim}.log"
    wait_for(lambda: "XT BEGIN" in lab_exec(arch, "sh", "-c", 'cat "$1" 2>/dev/null; true', "cat", log), 60,
             "the measurer's XT BEGIN")
    return victim


def run_on_lab(spec, out, what: str, timeout: float = 900) -> None:
    """`xtalk run` of a campaign on the lab, which must succeed; its wall time is printed."""
    started = time.monotonic()
    res = xtalk("run", spec, "--out", out, timeout=timeout)
    print(f"\n{what}: {time.monotonic() - started:.1f} s\n{res.stderr[-1500:]}")
    assert res.returncode == 0, res.stderr


def timeline_lateness(out, run_id: str, meta: dict, planned: list[tuple], pace) -> list[float]:
    """The run's timeline events are `planned` ((action, target, planned_s) in order), each done
    after its planned time, in order, before the run's end, and no later than its dom0 commands
    take at the lab's pace measured beside the campaign (lab_pace.DomZeroPace) after its planned
    time or the previous event's end, whichever is later (events fire one after the other); the
    lateness of each."""
    timeline = [e for e in events(out, run_id) if e["kind"] == "timeline"]
    assert [(e["action"], e["target"], e["planned_s"]) for e in timeline] == planned
    late = [round(e["t_s"] - e["planned_s"], 2) for e in timeline]
    done = [e["t_s"] for e in timeline]
    own = [round(t - max(e["planned_s"], previous), 2) for e, t, previous in zip(timeline, done, [0.0, *done])]
    ended = next(e["host_ns"] - meta["origin_host_ns"] for e in events(out, run_id) if e["kind"] == "run_end") / 1e9
    print(f"{run_id}: timeline events done {late} s after planned, {own} s after they could start "
          f"(bound {pace.bound():.2f} s: {pace}), the run ended at {ended:.2f} s")
    assert min(late) >= 0 and max(own) < pace.bound() and done == sorted(done) and done[-1] < ended, \
        (late, own, pace.bound(), ended)
    return late


def left_in_dom0(arch: str) -> None:
    """Nothing of a dom0 stressor's is left: no stress-ng, dom0's vCPU 1 offline again, its work
    dir empty; and no domain of xtalk's."""
    assert "stress-ng" not in lab_exec(arch, "ps", "-o", "args") and xtalk_domains(arch) == []
    assert "--p" in lab_exec(arch, "xl", "vcpu-list", "Domain-0").splitlines()[2]  # vCPU 1 offline
    assert lab_exec(arch, "ls", "/run/xtalk/dom0").split() == []


def extra_pools(arch: str) -> list[str]:
    return [line.split()[0] for line in lab_exec(arch, "xl", "cpupool-list").splitlines()[1:]
            if line.split() and line.split()[0] != "Pool-0"]


def runs(out) -> dict[str, dict]:
    found = {}
    for meta in sorted(campaign_dir(out).glob("runs/*/meta.json")):
        found[meta.parent.name] = json.loads(meta.read_text())
    return found


def events(out, run_id: str) -> list[dict]:
    path = campaign_dir(out) / "runs" / run_id / "events.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


STARTED_LABS: set[str] = set()  # the archs whose lab this test session started: stopped at its end
NEXT_TEST: list = [None]  # the test after the one running (conftest.py's runtest hook sets it)


def wants_lab(item, arch: str) -> bool:
    """Whether a test is one of the arch's lab group."""
    mark = item.get_closest_marker("xdist_group") if item is not None else None
    return mark is not None and mark.args[0] == LAB_GROUP[arch].args[0]


def lab_fixture(arch: str, xen: str = "debian"):
    """The lab for the module: reused when it runs with this Xen, else (re)started. It stays up
    while the next test is of its group (one boot for the modules that want the same Xen: the
    modules that use a lab are one xdist group, one after the other in one worker), and is
    stopped after the group's last test (an idle TCG lab takes a fifth of a CPU) unless it
    was running before the session started it."""
    if shutil.which(QEMU[arch]) is None:
        pytest.skip(f"{QEMU[arch]} is not installed: QEMU cannot run the {arch} Xen lab here "
                    f"(apt-get install {'qemu-system-arm' if arch == 'arm64' else 'qemu-system-x86'})")
    was_running = xtalk("lab", "status").stdout
    if f"{arch}: running" in was_running and f"{arch}: running, Xen {xen}," not in was_running:
        xtalk("lab", "stop", "--arch", arch)
    if f"{arch}: running, Xen {xen}," not in was_running:
        STARTED_LABS.add(arch)
    started = time.monotonic()
    res = xtalk("lab", "start", "xen", "--arch", arch, "--xen", xen, timeout=1800)
    assert res.returncode == 0, res.stderr
    print(f"\n{arch} lab: {res.stderr.strip()} ({time.monotonic() - started:.1f} s with the build)")
    yield arch
    assert xtalk_domains(arch) == [], "a domain created by xtalk survived"
    assert followers(arch) == [], "a console follower outlived its run"
    if arch in STARTED_LABS and not wants_lab(NEXT_TEST[0], arch):
        xtalk("lab", "stop", "--arch", arch)
        STARTED_LABS.discard(arch)


HEALTH_S = 20  # dom0 runs `true` over ssh within this (a second or two in a healthy TCG lab)
REBOOT_FAILED: dict[str, str] = {}  # arch -> why its lab could not be booted again: the tests after fail at once


def dom0_silence(arch: str) -> str | None:
    """None when the running lab's dom0 ran `true` within HEALTH_S; else what is wrong."""
    from xtalk.errors import InfrastructureError
    from xtalk.lab.vm import current
    lab = current(arch)
    if lab is None:
        return f"the {arch} lab's QEMU is not running"
    started = time.monotonic()
    try:
        lab.executor().run(["true"], timeout=HEALTH_S)
    except InfrastructureError as e:
        return f"dom0 did not run `true` within {HEALTH_S} s ({time.monotonic() - started:.1f} s: {e})"
    return None


def healthy(arch: str, xen: str = "debian") -> str:
    """The arch for a lab test, once its lab's dom0 answers: a lab whose dom0 does not is stopped
    and booted again, once; a lab that cannot be booted again fails this test and those after it."""
    if arch in REBOOT_FAILED:
        pytest.fail(f"the {arch} lab was stopped and could not be booted again: {REBOOT_FAILED[arch]}")
    silence = dom0_silence(arch)
    if silence is None:
        return arch
    warnings.warn(f"{silence}: the {arch} lab is stopped and booted again", stacklevel=2)
    xtalk("lab", "stop", "--arch", arch)
    res = xtalk("lab", "start", "xen", "--arch", arch, "--xen", xen, timeout=1800)
    STARTED_LABS.add(arch)
    silence = dom0_silence(arch) if res.returncode == 0 else res.stderr.strip()[-1500:]
    if silence is not None:
        REBOOT_FAILED[arch] = silence
        pytest.fail(f"the {arch} lab, booted again, does not answer: {silence}")
    return arch


def lab_fixtures(name: str, arch: str, xen: str = "debian"):
    """The fixtures of a lab: `<name>_booted` boots it for the module (lab_fixture), `<name>`,
    what a test takes, checks it before each test (healthy) and gives its arch."""
    @pytest.fixture(scope="module", name=f"{name}_booted")
    def booted():
        yield from lab_fixture(arch, xen)

    @pytest.fixture(name=name)
    def checked(request):
        return healthy(request.getfixturevalue(f"{name}_booted"), xen)
    return booted, checked


arm64_lab_booted, arm64_lab = lab_fixtures("arm64_lab", "arm64")
x86_64_lab_booted, x86_64_lab = lab_fixtures("x86_64_lab", "x86_64")
# the arm64 lab with the "all-schedulers" Xen (RTDS, null: xtalk.lab.xen_source)
rt_lab_booted, rt_lab = lab_fixtures("rt_lab", "arm64", xen="all-schedulers")


def stop_started_labs() -> None:
    """Stop the labs this session started and left up (conftest.py calls it at the session's end)."""
    for arch in sorted(STARTED_LABS):
        xtalk("lab", "stop", "--arch", arch)
    STARTED_LABS.clear()


def check_linux_rt_runs(out, arch: str, kernel_flavour: str) -> dict[str, dict]:
    """Every run of a linux-rt campaign passed with cyclictest samples from a Linux-RT domU
    whose console was hvc0; the image is named in the metadata; nothing survived."""
    found = runs(out)
    assert found and all(m["status"] == "pass" for m in found.values()), \
        {k: (m["status"], m["reason"]) for k, m in found.items()}
    for run_id, meta in found.items():
        bm = meta["backend_metadata"]
        package = bm["image_kernel"]["package"]
        assert bm["image_kind"] == "linux-rt" and package.startswith("linux-image-") and package.endswith(kernel_flavour)
        assert bm["dom0_ramdisk"].endswith("initramfs.cpio") and "rt-tests" in bm["image_packages"]
        config = bm["domains"]["measurer"]["config"]
        assert f'ramdisk = "{bm["dom0_ramdisk"]}"' in config and "memory = 256" in config
        assert "console=hvc0" in config and "xtalk.bench=cyclictest" in config
        assert meta["guest_begin"]["platform"] == "xen" and meta["sample_count"] > 100
        assert [m["name"] for m in meta["metrics"].values()] == ["cyclictest_t0"]
        console = (campaign_dir(out) / "runs" / run_id / "xen-console-measurer.log").read_text()
        assert "xtalk-init:" in console and "XT END" in console
    assert xtalk_domains(arch) == []
    return found
