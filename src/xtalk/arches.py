"""Architecture names: xtalk says `x86_64` and `arm64` everywhere (spec options, CLI
flags, metadata, cache directories). Other spellings a user, the host (`uname -m`) or a
tool gives (`aarch64`, the kernel's; `amd64`, Debian's) are accepted and normalised here.
Names of outside things keep their own spelling (qemu-system-aarch64, the
aarch64-linux-gnu toolchain, Debian's amd64/arm64).
"""
from __future__ import annotations

import platform

ARCHES = ("x86_64", "arm64")
ALIASES = {"x86_64": "x86_64", "amd64": "x86_64", "arm64": "arm64", "aarch64": "arm64"}


def normalise(name: object) -> str | None:
    """xtalk's name of an architecture (None for one it does not know)."""
    return ALIASES.get(name) if isinstance(name, str) else None


def host_arch() -> str | None:
    """This machine's architecture, in xtalk's name (None: neither x86_64 nor arm64)."""
    return normalise(platform.machine())
