"""The Xen lab's recipe and boot command lines (pure parts; booting is tests/integration/test_xen*.py)."""
from __future__ import annotations

from pathlib import Path

from xtalk.lab import recipe, vm
from xtalk.lab.recipe import LabImage, READY_MARK, _module_depends, _modules, init_script


def _ko(path: Path, depends: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\x7fELF junk\x00license=GPL\x00depends=" + depends.encode() + b"\x00vermagic=6.1\x00")


def test_modules_come_with_their_dependencies_first(tmp_path):
    base = tmp_path / "lib/modules/6.1.0-1-arm64/kernel"
    _ko(base / "net/core/failover.ko", "")
    _ko(base / "drivers/net/net_failover.ko", "failover")
    _ko(base / "drivers/net/virtio_net.ko", "net_failover")
    _ko(base / "drivers/xen/xen-evtchn.ko", "")
    assert _module_depends(base / "drivers/net/virtio_net.ko") == ["net_failover"]
    order = [p.name for p in _modules(tmp_path, ["xen-evtchn", "virtio_net"])]
    assert order == ["xen-evtchn.ko", "failover.ko", "net_failover.ko", "virtio_net.ko"]


def test_init_starts_xen_services_and_reports_ready():
    text = init_script()
    for needle in ("mount -t xenfs xenfs /proc/xen", "xenstored", "xen-init-dom0", "xenconsoled --log=guest",
                   "dropbear", READY_MARK):
        assert needle in text
    assert "@" not in text.replace("$(", "")  # every placeholder was filled


def _image(tmp_path: Path, arch: str) -> LabImage:
    for name in ("xen", "vmlinuz", "dom0-initrd.cpio.gz"):
        (tmp_path / name).write_bytes(b"x" * 4096)
    (tmp_path / "lab.json").write_text('{"files": {"xen": "xen", "kernel": "vmlinuz", '
                                       '"initrd": "dom0-initrd.cpio.gz"}}')
    return LabImage(arch, tmp_path)


def test_arm64_boot_line(tmp_path):
    argv = vm.qemu_argv("arm64", _image(tmp_path, "arm64"), tmp_path, 2222, 3, 3072, 768, tmp_path / "virt.dtb")
    assert argv[0] == "qemu-system-aarch64"
    assert "virt,virtualization=on,gic-version=3" in argv and "cortex-a57" in argv
    assert "tcg,thread=multi" in argv and "user,id=n0,hostfwd=tcp:127.0.0.1:2222-:22" in argv
    loaders = [a for a in argv if a.startswith("loader,")]
    assert len(loaders) == 2 and "addr=0x50000000" in loaders[0] and "addr=0x50200000" in loaders[1]


def test_x86_64_boot_line(tmp_path):
    argv = vm.qemu_argv("x86_64", _image(tmp_path, "x86_64"), tmp_path, 2222, 3, 3072, 768)
    assert argv[0] == "qemu-system-x86_64" and "qemu64,+svm,+npt,-rdtscp,+invtsc" in argv  # no RDTSCP: docs/xen.md
    append = argv[argv.index("-append") + 1]
    assert "console=com1" in append and "dom0_mem=768M,max:768M" in append and "dom0_vcpus_pin" in append
    modules = argv[argv.index("-initrd") + 1]
    assert modules.count(",") == 1 and "console=hvc0" in modules  # multiboot modules: no commas in args


def test_recipes_cover_both_arches():
    assert recipe.recipe("aarch64").facts.deb == "arm64" and recipe.recipe("amd64").facts.deb == "amd64"
    assert recipe.recipe("x86_64").hypervisor_file.endswith(".gz")
