"""Which QEMU runs xtalk's probe guest (qemu backend): Debian's trimmed microvm build under
KVM on microvm, without isa-debug-exit (the guest powers off through the GED); the full
build with the exit device for TCG, another machine, extra_args, or where the trimmed one
is not installed. QMP is always the socket pair's fd."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from xtalk.backends import qemu
from xtalk.plugins import check_backend_options
from xtalk.spec.plan import plan
from xtalk.spec.load import parse_campaign

SPEC = """
name = "b"
cpus = [0]
[backend]
kind = "qemu"
arch = "x86_64"
{backend}
[measurer]
bench = "qsort"
"""
TRIMMED = "qemu-system-x86_64-microvm"
EXIT_DEVICE = "isa-debug-exit,iobase=0xf4,iosize=0x04"


def argv_of(monkeypatch, tmp_path, backend="", installed=True) -> list[str]:
    facts = {"machine": "x86_64", "caches": [], "llc_bytes": 0,
             "kvm": {"available": True, "kind": "kvm_pvm", "reason": "", "emulates_ring0": True}}
    monkeypatch.setattr(qemu, "host_facts", lambda: facts)
    monkeypatch.setattr(qemu, "tool_version", lambda argv: "test")
    which = shutil.which
    monkeypatch.setattr(qemu.shutil, "which", lambda name: (f"/usr/bin/{name}" if installed else None)
                        if name == TRIMMED else which(name))
    spec, raw = parse_campaign(SPEC.format(backend=backend), "spec.toml", check_backend_options, base=tmp_path)
    backend_ = qemu.QemuBackend(spec.backend.options)
    backend_.image = Path("/probe.elf")
    run = plan(spec, raw)[0]
    return backend_.argv(run.measurer, run, tmp_path / "ram", 7)


def test_probe_on_microvm_under_kvm_runs_the_trimmed_build_without_exit_device(monkeypatch, tmp_path):
    argv = argv_of(monkeypatch, tmp_path)
    assert argv[0] == TRIMMED and argv[argv.index("-accel") + 1] == "kvm"
    assert EXIT_DEVICE not in argv
    assert argv[argv.index("-chardev") + 1] == "socket,id=qmp,fd=7" and "chardev=qmp,mode=control" in argv


@pytest.mark.parametrize("backend, installed", [
    ('accel = "tcg"', True),                   # the trimmed build has no TCG
    ('machine = "pc"', True),                  # nor pc
    ('extra_args = ["-smp", "1"]', True),      # the user's arguments may need the full build
    ("", False),                               # not installed
], ids=["tcg", "pc", "extra_args", "not-installed"])
def test_otherwise_the_full_build_with_the_exit_device(monkeypatch, tmp_path, backend, installed):
    argv = argv_of(monkeypatch, tmp_path, backend, installed)
    assert argv[0] == "qemu-system-x86_64" and EXIT_DEVICE in " ".join(argv)
