"""The QEMU command line of a guest image of the user's (qemu backend): the image as it is
on the spec's machine, with its initrd and command line, and nothing of xtalk's (no
shared RAM, ring, command line or exit device); xtalk's own guests beside it unchanged."""
from __future__ import annotations

from pathlib import Path

from xtalk.backends import qemu
from xtalk.plugins import check_backend_options
from xtalk.spec.plan import plan
from xtalk.spec.load import parse_campaign

SPEC = """
name = "f"
cpus = [0, 1]
[backend]
kind = "qemu"
{backend}
[measurer]
bench = "cyclictest"
output = "cyclictest"
image = "kernel"
{measurer}
[[stressors]]
name = "thrash"
bench = "cache_thrash"
[matrix]
placement = ["same-core"]
"""


def backend_and_run(monkeypatch, tmp_path, backend="", measurer="", kvm="kvm_pvm"):
    facts = {"machine": "x86_64", "caches": [], "llc_bytes": 0,
             "kvm": {"available": True, "kind": kvm, "reason": "", "emulates_ring0": kvm == "kvm_pvm"}}
    monkeypatch.setattr(qemu, "host_facts", lambda: facts)
    monkeypatch.setattr(qemu, "tool_version", lambda argv: "test")
    spec, raw = parse_campaign(SPEC.format(backend=backend, measurer=measurer), "spec.toml", check_backend_options,
                               base=tmp_path)
    return qemu.QemuBackend(spec.backend.options), plan(spec, raw)[0]


def value(argv: list[str], flag: str) -> str:
    return argv[argv.index(flag) + 1]


def test_an_x86_image_boots_as_it_is_on_pc_under_tcg_on_kvm_pvm(monkeypatch, tmp_path):
    backend, run = backend_and_run(monkeypatch, tmp_path, measurer='initrd = "rd.cpio"\nappend = "console=ttyS0"')
    backend.image = Path("/probe.elf")
    argv = backend.argv(run.measurer, run, None, 3)
    assert value(argv, "-M") == "pc" and value(argv, "-accel") == "tcg" and value(argv, "-m") == "256M"
    assert value(argv, "-kernel") == str(tmp_path / "kernel") and value(argv, "-initrd") == str(tmp_path / "rd.cpio")
    assert value(argv, "-append") == "console=ttyS0" and "-no-reboot" in argv
    assert not any("memory-backend" in a or "isa-debug-exit" in a or "ring_gpa" in a for a in argv)
    probe = backend.argv(run.stressors[0], run, tmp_path / "ram", 3)  # xtalk's guest beside it
    assert value(probe, "-M") == "microvm" and value(probe, "-accel") == "kvm" and value(probe, "-kernel") == "/probe.elf"
    assert any("memory-backend-file" in a for a in probe) and "bench=cache_thrash" in value(probe, "-append")
    assert backend.memory_mib(run.measurer, run) == 256


def test_without_initrd_or_append_none_is_given_and_kvm_where_the_host_has_real_kvm(monkeypatch, tmp_path):
    backend, run = backend_and_run(monkeypatch, tmp_path, backend='machine = "q35"', kvm="kvm_intel")
    argv = backend.argv(run.measurer, run, None, 3)
    assert "-initrd" not in argv and "-append" not in argv
    assert value(argv, "-M") == "q35" and value(argv, "-accel") == "kvm"


def test_an_arm64_image_on_virt_with_the_specs_gic_and_cpu(monkeypatch, tmp_path):
    backend, run = backend_and_run(monkeypatch, tmp_path, backend='arch = "aarch64"\ngic_version = 2\ncpu = "cortex-a53"')
    argv = backend.argv(run.measurer, run, None, 3)
    assert argv[0] == "qemu-system-aarch64" and value(argv, "-M") == "virt,gic-version=2"
    assert value(argv, "-cpu") == "cortex-a53" and value(argv, "-accel") == "tcg"    # an arm64 guest on x86
    default, run = backend_and_run(monkeypatch, tmp_path, backend='arch = "arm64"')
    assert value(default.argv(run.measurer, run, None, 3), "-cpu") == "cortex-a57"
