"""Architectures: every fact xtalk keeps about one, in one table (FACTS), which the rest
of the code reads: Debian's name (images/apt.py), the GNU triplet (the image builder's
library directories, the Xen lab's cross compiler), ELF machine numbers (images/linux_rt.py,
spec/images.py), QEMU's system emulator (backends/qemu.py, lab/vm.py) and the probe
guest's images (QEMU, Xen, the Xen lab).

Names: xtalk says `x86_64` and `arm64` everywhere (spec options, CLI flags, metadata,
cache directories). Other spellings a user, the host (`uname -m`) or a tool gives
(`aarch64`, the kernel's; `amd64`, Debian's) are accepted and normalised here. Names of
outside things keep their own spelling (qemu-system-aarch64, the aarch64-linux-gnu
toolchain, Debian's amd64/arm64).
Caveat: the Makefiles (mk/x86_64.mk, mk/arm64.mk, mk/posix.mk, mk/xen-lab.mk) keep their
own copies of the probe images' paths and the cross compiler's prefix (Python does not
reach them); probe_target, probe_image and probe_multiboot here name what they build.
"""
from __future__ import annotations

import platform
from dataclasses import dataclass

EM_386, EM_X86_64, EM_AARCH64 = 3, 62, 183  # ELF e_machine values


@dataclass(frozen=True)
class Arch:
    name: str                     # xtalk's
    aliases: tuple[str, ...]      # the other spellings accepted for it (the kernel's, Debian's)
    deb: str                      # Debian's architecture
    triplet: str                  # GNU triplet: toolchain prefix, multiarch library directories
    elf_machine: int              # e_machine of its programs
    elf_kernels: tuple[int, ...]  # e_machine values of the ELF kernels its guests boot
    qemu_system: str              # QEMU's system emulator for its guests
    probe_target: str             # the make target that builds the probe guest's images
    probe_image: str              # the probe guest as a PVH kernel / Image (QEMU microvm, virt; Xen domU)
    probe_multiboot: str | None   # the probe guest with a multiboot entry too (QEMU pc, q35); None: no such


FACTS = {a.name: a for a in (
    # EM_386 too: a 32-bit multiboot kernel such as Zephyr's qemu_x86_64 boots on an x86_64 guest
    Arch("x86_64", ("amd64",), "amd64", "x86_64-linux-gnu", EM_X86_64, (EM_X86_64, EM_386),
         "qemu-system-x86_64", "x86_64", "build/x86_64/xtalk-probe-pvh.elf", "build/x86_64/xtalk-probe.elf"),
    Arch("arm64", ("aarch64",), "arm64", "aarch64-linux-gnu", EM_AARCH64, (EM_AARCH64,),
         "qemu-system-aarch64", "arm64", "build/arm64/xtalk-probe.img", None),
)}
ARCHES = tuple(FACTS)
ALIASES = {alias: a.name for a in FACTS.values() for alias in (a.name, *a.aliases)}
ELF_KERNELS = {machine: a.name for a in FACTS.values() for machine in a.elf_kernels}


def normalise(name: object) -> str | None:
    """xtalk's name of an architecture (None for one it does not know)."""
    return ALIASES.get(name) if isinstance(name, str) else None


def facts(name: object) -> Arch | None:
    """The facts of an architecture by any of its spellings (None for one xtalk does not know)."""
    return FACTS.get(normalise(name) or "")


def of_elf_kernel(machine: int) -> str | None:
    """The architecture whose guests boot an ELF kernel of this e_machine (None: no such)."""
    return ELF_KERNELS.get(machine)


def host_arch() -> str | None:
    """This machine's architecture, in xtalk's name (None: neither x86_64 nor arm64)."""
    return normalise(platform.machine())
