"""Guest images of the user's in a campaign spec (a workload's `image`, docs/guests.md),
checked before anything boots: `image` and `initrd` are readable files; the image is a
kernel for the architecture of the backend's guests, told from its first bytes (an ELF
file by its machine, as host/arches.py maps it; an arm64 Image by the magic `ARMd` at 0x38,
gzip-compressed or not; an x86 bzImage by `HdrS` at 0x202); such a guest takes no
`params` (nothing passes them to it) and is no host stressor; `initrd` and `append`
need `image`; a backend that boots no images says why. What a backend boots comes in
through `booted_by` (running/preflight.py asks the backend), as workloads.py gets its suites.
Problems are (location, message) on the raw spec.
Caveat: only the header is read; whether the kernel suits the spec's machine, CPU or GIC
shows when it boots.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..host.arches import of_elf_kernel
from .workloads import backend_of

HEAD_BYTES = 0x400


@dataclass(frozen=True)
class Booted:
    """What a backend boots for a spec's backend options."""

    arch: str | None  # its guests' architecture (x86_64, arm64); None: known only once it connects
    refusal: str = ""  # why it boots no images of the user's ("": it does)


BootedBy = Callable[[str, dict], "Booted | None"]  # (backend kind, options) -> None for an unknown backend


def identify(path: Path) -> tuple[str | None, str]:
    """(architecture or None, what the file is) from its first bytes."""
    with open(path, "rb") as f:
        head = f.read(HEAD_BYTES)
    if head[:4] == b"\x7fELF":
        machine = int.from_bytes(head[18:20], "little" if head[5] == 1 else "big")
        arch = of_elf_kernel(machine)
        return arch, f"an ELF file for {arch}" if arch else f"an ELF file for machine {machine} (not x86 or arm64)"
    if head[:2] == b"\x1f\x8b":  # QEMU and Xen unpack a gzip-compressed arm64 Image
        try:
            inner = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head, 0x40)
        except zlib.error:
            inner = b""
        if inner[0x38:0x3c] == b"ARMd":
            return "arm64", "a gzip-compressed arm64 Image"
        return None, "gzip-compressed, and not an arm64 Image inside"
    if head[0x38:0x3c] == b"ARMd":
        return "arm64", "an arm64 Image"
    if head[0x202:0x206] == b"HdrS":
        return "x86_64", "an x86 bzImage"
    return None, "neither an ELF file, an arm64 Image (ARMd at 0x38) nor an x86 bzImage (HdrS at 0x202)"


def unreadable(path: Path) -> str | None:
    """Why path is no file xtalk can read (None: it is)."""
    if not path.exists():
        return f"{path}: no such file"
    if path.is_dir():
        return f"{path}: a directory, not an image file"
    if not path.is_file():
        return f"{path}: not a regular file"
    try:
        with open(path, "rb") as f:
            f.read(1)
    except OSError as err:
        return f"{path}: cannot be read ({err.strerror or err})"
    return None


def _image(loc: tuple, image: str, booted: Booted | None) -> list[tuple[tuple, str]]:
    path = Path(image)
    why = unreadable(path)
    if why:
        return [(loc + ("image",), why)]
    arch, what = identify(path)
    if arch is None:
        return [(loc + ("image",), f"{path.name} is {what}: no kernel the backends boot")]
    want = booted.arch if booted is not None and not booted.refusal else None
    if want and arch != want:
        return [(loc + ("image",), f"{path.name} is {what}, but the backend's guests are {want} (backend.arch)")]
    return []


def _workload(loc: tuple, table: dict, booted: Booted | None) -> list[tuple[tuple, str]]:
    image = table.get("image")
    if image is None:
        return [(loc + (key,), "only for a guest image of your own: give `image` too")
                for key in ("initrd", "append") if table.get(key) not in (None, "")]
    if not isinstance(image, str):
        return []  # the model says what is wrong with it
    out = []
    if booted is not None and booted.refusal:
        out.append((loc + ("image",), booted.refusal))
    if table.get("host") is True:
        out.append((loc + ("host",), "a host stressor is xtalk's native program and boots no image: "
                                     "remove host or image"))
    if isinstance(table.get("params"), dict) and table["params"]:
        out.append((loc + ("params",), "a guest image of your own takes no params (only xtalk's guests read "
                                       "them): give its settings in `append`, or build them into the image"))
    out += _image(loc, image, booted)
    initrd = table.get("initrd")
    why = unreadable(Path(initrd)) if isinstance(initrd, str) else None
    if why:
        out.append((loc + ("initrd",), why))
    return out


def image_problems(raw: dict, booted_by: BootedBy) -> list[tuple[tuple, str]]:
    """The images of one configuration's guests (a matrix value applied)."""
    booted = booted_by(*backend_of(raw))
    stressors = raw.get("stressors") if isinstance(raw.get("stressors"), list) else []
    tables = [(("measurer",), raw.get("measurer"))] + [(("stressors", i), s) for i, s in enumerate(stressors)]
    return [p for loc, table in tables if isinstance(table, dict) for p in _workload(loc, table, booted)]
