"""Pieces of the image builder and of the qemu backend's linux-rt option, without
downloading or booting anything: the cpio writer, the ELF reader, dependency parsing,
content hashing inputs, the kernel command line, the accelerator choice."""
from __future__ import annotations

import gzip
import shutil
import subprocess
from pathlib import Path


from xtalk.backends import qemu
from xtalk.images import cpio, elf
from xtalk.images.apt import Package, _parse_depends

ROOT = Path(__file__).resolve().parents[3]


def read_newc(data: bytes) -> dict[str, tuple[int, bytes]]:
    """A minimal newc reader: name -> (mode, data)."""
    out, off = {}, 0
    while True:
        head = data[off:off + 110]
        assert head[:6] == b"070701"
        f = [int(head[6 + 8 * i:14 + 8 * i], 16) for i in range(13)]
        mode, size, namesize = f[1], f[6], f[11]
        name = data[off + 110:off + 110 + namesize - 1].decode()
        off += 110 + namesize
        off += -off % 4
        if name == "TRAILER!!!":
            return out
        out[name] = (mode, data[off:off + size])
        off += size
        off += -off % 4


def test_cpio_is_reproducible_and_readable(tmp_path):
    entries = [("/init", "file", b"#!/bin/sh\n", 0o755), ("/bin", "dir", b"", 0o755),
               ("/bin/sh", "link", "busybox", 0o777), ("/dev/console", "chr", (5, 1), 0o600)]
    a, b = cpio.archive(entries), cpio.archive(list(reversed(entries)))
    assert a == b                                       # order of entries does not matter
    files = read_newc(a)
    assert files["init"] == (0o100755, b"#!/bin/sh\n")
    assert files["bin/sh"] == (0o120777, b"busybox")
    assert files["dev/console"][0] == 0o020600
    cpio.write(tmp_path / "x.gz", entries, "gzip")
    cpio.write(tmp_path / "y.gz", entries, "gzip")
    assert (tmp_path / "x.gz").read_bytes() == (tmp_path / "y.gz").read_bytes()
    assert gzip.decompress((tmp_path / "x.gz").read_bytes()) == a
    if shutil.which("cpio"):                            # the real tool agrees
        listing = subprocess.run(["cpio", "-t"], input=a, capture_output=True).stdout.decode().split()
        assert sorted(listing) == ["bin", "bin/sh", "dev/console", "init"]


def test_elf_reader_on_a_dynamic_and_a_static_program():
    subprocess.run(["make", "-s", "-C", str(ROOT), "posix", "posix-x86_64"], check=True)
    dyn = elf.deps(ROOT / "build/posix/native/xtalk-rt")
    assert "libc.so.6" in dyn.needed and dyn.interp and dyn.interp.endswith(".so.2")
    static = elf.deps(ROOT / "build/posix/x86_64/xtalk-rt")
    assert static.needed == () and static.interp is None and static.machine == 62
    assert not elf.is_elf(ROOT / "images/linux-rt/init")


def test_depends_parsing_takes_the_first_alternative():
    assert _parse_depends("libc6 (>= 2.34), libgcc-s1 | libgcc1, python3:any") == ("libc6", "libgcc-s1", "python3")
    p = Package("busybox-static", "1:1.35.0-4", "amd64", "pool/b.deb", "00", ())
    assert p.deb_name == "busybox-static_1%3a1.35.0-4_amd64.deb"   # what apt-get download writes


def host(kind="kvm_pvm", machine="x86_64"):
    return {"machine": machine, "kvm": {"available": True, "kind": kind, "reason": "",
                                        "emulates_ring0": kind == "kvm_pvm"}}


def test_linux_guests_use_tcg_on_kvm_pvm_with_the_reason():
    accel, why = qemu.choose_accel_linux("auto", "x86_64", host())
    assert accel == "tcg" and "kvm_pvm" in why and "emulated" in why
    assert qemu.choose_accel_linux("auto", "x86_64", host("kvm_intel"))[0] == "kvm"
    assert qemu.choose_accel_linux("kvm", "x86_64", host())[0] == "kvm"      # asked for explicitly
    assert qemu.choose_accel("auto", "x86_64", host())[0] == "kvm"           # probe guests keep KVM


def test_linux_rt_options_are_validated():
    assert qemu.QemuBackend.check_options({"image": "linux-rt"}) == []
    problems = qemu.QemuBackend.check_options({"image": "linux-rt", "memory_mib": 128})
    assert problems and "256" in problems[0][1]
    assert qemu.QemuBackend.check_options({"image": "debian"})


def test_kernel_command_line_carries_the_workload_and_the_ring(monkeypatch, tmp_path):
    from xtalk.plugins import check_backend_options
    from xtalk.spec.plan import plan
    from xtalk.spec.load import load_campaign

    spec_text = """
name = "t"
cpus = [0, 1]
[backend]
kind = "qemu"
image = "linux-rt"
arch = "{arch}"
[measurer]
bench = "tm_preempt"
params = {{ interval_s = 1 }}
[[stressors]]
name = "s"
bench = "stress_ng"
params = {{ class = "vm" }}
[matrix]
placement = ["same-core"]
"""
    for arch, console, ring in (("x86_64", "ttyS0", "memmap=4194304$0x8000000"),
                                ("aarch64", "ttyAMA0", "mem=264241152")):  # aarch64: the old name of arm64
        path = tmp_path / f"{arch}.toml"
        path.write_text(spec_text.format(arch=arch))
        spec, raw = load_campaign(str(path), check_backend_options)
        run = plan(spec, raw)[0]
        monkeypatch.setattr(qemu, "host_facts", lambda: {**host(), "caches": [], "llc_bytes": 0})
        monkeypatch.setattr(qemu, "tool_version", lambda argv: "test")
        backend = qemu.QemuBackend(spec.backend.options)
        assert backend.opts.arch in ("x86_64", "arm64")
        line = backend._cmdline(run.measurer, run)
        assert line.startswith(f"console={console} ") and ring in line
        assert "xtalk.bench=tm_preempt" in line and "xtalk.interval_s=1" in line
        assert f"xtalk.ring_gpa={backend.ring_gpa:#x}" in line and "xtalk.platform=" in line
        stress = backend._cmdline(run.stressors[0], run)
        assert "xtalk.bench=stress_ng" in stress and "xtalk.class=vm" in stress and "ring_gpa" not in stress
    assert backend.ring_gpa == 0x40000000 + (256 << 20) - (4 << 20)      # arm64: top of RAM


def test_prune_keeps_the_newest_builds_the_one_in_use_and_protected_ones(tmp_path):
    import os

    from xtalk.images import prune
    builds = []
    for i in range(6):
        d = tmp_path / f"linux-rt-x86_64-{i:02d}"
        d.mkdir()
        os.utime(d, (1000 + i, 1000 + i))
        builds.append(d)
    (tmp_path / "linux-rt-arm64-00").mkdir()  # another arch: not a candidate
    removed = prune(tmp_path, "linux-rt-x86_64-*", keep=builds[0], count=3, protect={builds[1]})
    assert sorted(removed) == [builds[2], builds[3]]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "linux-rt-arm64-00", "linux-rt-x86_64-00", "linux-rt-x86_64-01", "linux-rt-x86_64-04",
        "linux-rt-x86_64-05"]


def test_sources_become_deb_src_for_source_packages():
    from xtalk.images.apt import _version_key, as_deb_src
    deb822 = b"Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm\n\nTypes: deb\nURIs: x\n"
    assert as_deb_src(deb822) == deb822.replace(b"Types: deb\n", b"Types: deb-src\n")
    one_line = b"deb http://deb.debian.org/debian bookworm main\n# deb http://old bookworm main\n"
    assert as_deb_src(one_line) == b"deb-src http://deb.debian.org/debian bookworm main\n# deb http://old bookworm main\n"
    assert as_deb_src(b"Types: deb deb-src\n") == b"Types: deb deb-src\n"  # has them already
    versions = ["4.17.5+72-g01140da4e8-1", "4.17.7+13-g2445b30a44-0+deb12u1", "4.17.10-1"]
    assert sorted(versions, key=_version_key)[-1] == "4.17.10-1"
