"""Guest images of the user's, told apart by their first bytes, and the problems spec
check finds with them (xtalk.spec.images) for the backend's architecture."""
from __future__ import annotations

import gzip
import struct

import pytest

from tests.framework.repo import ROOT
from xtalk.spec.images import Booted, identify, image_problems


def elf(machine: int, bits: int = 64) -> bytes:
    ident = b"\x7fELF" + bytes([2 if bits == 64 else 1, 1, 1]) + bytes(9)
    return ident + struct.pack("<HH", 2, machine) + bytes(64)


def arm64_image() -> bytes:
    return bytes(0x38) + b"ARMd" + bytes(64)


def bzimage() -> bytes:
    return bytes(0x202) + b"HdrS" + bytes(64)


@pytest.mark.parametrize("data,arch,words", [
    (elf(3, bits=32), "x86_64", "ELF file for x86_64"),      # a multiboot kernel (Zephyr qemu_x86_64)
    (elf(62), "x86_64", "ELF file for x86_64"),
    (elf(183), "arm64", "ELF file for arm64"),
    (elf(243), None, "machine 243 (not x86 or arm64)"),      # RISC-V
    (arm64_image(), "arm64", "an arm64 Image"),
    (gzip.compress(arm64_image(), mtime=0), "arm64", "gzip-compressed arm64 Image"),
    (gzip.compress(b"text", mtime=0), None, "not an arm64 Image inside"),
    (bzimage(), "x86_64", "an x86 bzImage"),
    (b"#!/bin/sh\n", None, "neither an ELF file"),
])
def test_an_image_is_told_by_its_header(tmp_path, data, arch, words):
    path = tmp_path / "image"
    path.write_bytes(data)
    found, what = identify(path)
    assert found == arch and words in what


def test_the_probe_images_are_what_they_are():
    build = ROOT / "build"
    if not (build / "arm64" / "xtalk-probe.img").is_file():
        pytest.skip("the probe images are not built (make all)")
    assert identify(build / "x86_64" / "xtalk-probe.elf")[0] == "x86_64"       # 32-bit multiboot ELF
    assert identify(build / "x86_64" / "xtalk-probe-pvh.elf")[0] == "x86_64"
    assert identify(build / "arm64" / "xtalk-probe.img") == ("arm64", "an arm64 Image")


def spec(image: str | None, **measurer) -> dict:
    table = {"bench": "cyclictest", "output": "cyclictest", **({"image": image} if image else {}), **measurer}
    return {"backend": {"kind": "qemu"}, "measurer": table,
            "stressors": [{"name": "s", "bench": "cache_thrash", "host": True, "image": image}]}


def test_problems_name_the_field(tmp_path):
    kernel = tmp_path / "Image"
    kernel.write_bytes(arm64_image())
    arm = lambda kind, options: Booted("arm64")  # noqa: E731
    x86 = lambda kind, options: Booted("x86_64")  # noqa: E731
    found = dict(image_problems(spec(str(kernel), params={"a": 1}, initrd=str(tmp_path / "no.cpio")), x86))
    assert "is an arm64 Image, but the backend's guests are x86_64" in found[("measurer", "image")]
    assert "takes no params" in found[("measurer", "params")]
    assert found[("measurer", "initrd")].endswith("no.cpio: no such file")
    assert "boots no image" in found[("stressors", 0, "host")]
    assert image_problems(spec(str(kernel)), arm) == [(("stressors", 0, "host"), found[("stressors", 0, "host")])]
    unknown = lambda kind, options: Booted(None)  # noqa: E731  (xen before it connects: any arch)
    assert not dict(image_problems(spec(str(kernel)), unknown)).get(("measurer", "image"))
    alone = dict(image_problems(spec(None, initrd="x.cpio", append="quiet"), arm))
    assert alone[("measurer", "initrd")] == alone[("measurer", "append")] == \
        "only for a guest image of your own: give `image` too"
    refused = dict(image_problems(spec(str(kernel)), lambda kind, options: Booted(None, "no images here")))
    assert refused[("measurer", "image")] == "no images here"
