"""A guest image of the user's for the tests, as a user's RTOS image would be: xtalk's
Linux-RT kernel and initramfs (xtalk.images.linux_rt, built and cached on first use) with
one more cpio appended whose /init replaces the image's (of two archives the kernel
unpacks, the later file of a name wins). That init runs one shell command (raw
cyclictest output, nothing, a CPU hog) with kernel messages off the console, then powers
off. Nothing of xtalk's protocol is in it: the console is read by the spec's parser.
Used by tests/integration/test_foreign_images.py.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from xtalk.images import cpio, linux_rt

INIT = """#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin:/usr/bin:/sbin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/shm
mount -t tmpfs tmpfs /dev/shm
echo 1 >/proc/sys/kernel/printk
{command}
poweroff -f
"""
SILENT = "true"                   # prints nothing, then powers off
HOG = "while :; do :; done"      # a CPU hog that never ends by itself (a stressor)
# the console a Linux guest writes to, per backend and arch
CONSOLE = {("qemu", "x86_64"): "ttyS0", ("qemu", "arm64"): "ttyAMA0",
           ("xen", "x86_64"): "hvc0", ("xen", "arm64"): "hvc0"}
APPEND = "console={console} quiet panic=-1"


def cyclictest(seconds: float) -> str:
    """rt-tests' cyclictest (/usr/bin in the image): one thread at SCHED_FIFO 90, a 1 ms
    interval, every wake-up's latency printed (-v) as <thread>:<loop>:<us>."""
    return f"cyclictest -q -m -p 90 -D {seconds:g} -i 1000 -v"


@dataclass(frozen=True)
class ForeignImage:
    kernel: Path
    initrd: Path
    arch: str

    def append(self, backend: str) -> str:
        return APPEND.format(console=CONSOLE[(backend, self.arch)])


@functools.cache
def _linux_rt(arch: str) -> linux_rt.Image:
    return linux_rt.build(arch, log=lambda msg: None)  # checks its inputs each time: once per test session


def build(arch: str, dest: Path, name: str, command: str, bzimage: bool = False) -> ForeignImage:
    """The image running `command` in dest/<name>.cpio. The kernel: linux_rt's (x86: the
    vmlinux ELF; arm64: the Image), or with bzimage the compressed vmlinuz (x86: a bzImage,
    what Xen's PVH loader takes)."""
    image = _linux_rt(arch)
    init = cpio.archive([("/init", "file", INIT.format(command=command).encode(), 0o755)])
    initrd = dest / f"{name}.cpio"
    initrd.write_bytes(image.initrd.read_bytes() + init)
    return ForeignImage(image.dir / "vmlinuz" if bzimage else image.kernel, initrd, arch)
