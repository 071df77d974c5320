"""Read what a dynamically linked ELF program needs: its interpreter (PT_INTERP) and its
DT_NEEDED sonames. 64-bit little-endian ELF only (x86-64, arm64) - enough to assemble
an initramfs from Debian packages without running the foreign-architecture binaries.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

PT_LOAD, PT_DYNAMIC, PT_INTERP = 1, 2, 3
DT_NEEDED, DT_STRTAB = 1, 5


@dataclass(frozen=True)
class ElfDeps:
    interp: str | None
    needed: tuple[str, ...]
    machine: int


def is_elf(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def deps(path: Path) -> ElfDeps:
    data = Path(path).read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError(f"{path}: not a 64-bit little-endian ELF file")
    machine = struct.unpack_from("<H", data, 18)[0]
    phoff, = struct.unpack_from("<Q", data, 32)
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    loads, dynamic, interp = [], None, None
    for i in range(phnum):
        p_type, _flags, p_offset, p_vaddr, _paddr, p_filesz, _memsz, _align = struct.unpack_from(
            "<IIQQQQQQ", data, phoff + i * phentsize)
        if p_type == PT_LOAD:
            loads.append((p_vaddr, p_offset, p_filesz))
        elif p_type == PT_DYNAMIC:
            dynamic = (p_offset, p_filesz)
        elif p_type == PT_INTERP:
            interp = data[p_offset:p_offset + p_filesz].rstrip(b"\0").decode()
    if dynamic is None:
        return ElfDeps(interp, (), machine)

    def offset(vaddr: int) -> int:
        for v, o, size in loads:
            if v <= vaddr < v + size:
                return vaddr - v + o
        raise ValueError(f"{path}: address {vaddr:#x} outside the loaded segments")

    entries, strtab = [], None
    for off in range(dynamic[0], dynamic[0] + dynamic[1], 16):
        tag, val = struct.unpack_from("<qQ", data, off)
        if tag == 0:
            break
        if tag == DT_NEEDED:
            entries.append(val)
        elif tag == DT_STRTAB:
            strtab = offset(val)
    if strtab is None:
        return ElfDeps(interp, (), machine)
    names = tuple(data[strtab + v:data.index(b"\0", strtab + v)].decode() for v in entries)
    return ElfDeps(interp, names, machine)
