"""What a xen domU boots: the kernel (and ramdisk) uploaded to dom0, and its command line.

- probe: the freestanding probe guest as a PVH kernel (x86-64 PVH ELF, arm64 Image);
  command line = the workload's key=value tokens plus the counter frequency.
- linux-rt: Debian's PREEMPT_RT kernel + xtalk's initramfs (images.linux_rt, built and
  cached on first use) as a PVH (x86-64) or arm64 domU with console hvc0; the workload
  goes on the kernel command line as xtalk.KEY=VALUE. The bzImage is uploaded on x86
  (8 MB; Xen's PVH loader unpacks it) rather than the 65 MB vmlinux QEMU boots.
- an image of the user's (a workload's `image`: Zephyr's `xenvm` build, a Linux kernel):
  that kernel, its `initrd` as the ramdisk and its `append` as the command line, nothing
  of xtalk's; memory_mib, else FOREIGN_MEMORY_MIB.
No shared memory with dom0 in any case: xtalk's measurer buffers its samples
(buffer_slots) and prints them after its window.

Files go to dom0 once per content: the remote name carries the sha256, checked before
each run and after an upload (dom0 keeps them in tmpfs /run/xtalk/images until it reboots).
Caveat (lab): Xen's SVM emulation under QEMU TCG lacks NRIP, so the lab's x86 CPU model
has no RDTSCP (Linux would otherwise crash at its first RDTSCP).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ...images import artifacts
from ...host.arches import FACTS
from ...errors import InfrastructureError
from ...images import linux_rt
from ...spec.plan import GuestPlan, RunPlan
from ..base import workload_args
from .xl import FOREIGN_MEMORY_MIB, XenOptions

PROBE_IMAGES = {a.name: (a.probe_target, a.probe_image) for a in FACTS.values()}  # arch -> (make target, path)
IMAGE_DIR = "/run/xtalk/images"


def upload(executor, run: Callable, local: Path, digest: str) -> str:
    """Put local (content sha256 digest) into dom0 unless the same content is there; its path there."""
    remote = f"{IMAGE_DIR}/{digest[:16]}-{local.name}"
    have = run(["sha256sum", remote])
    if not (have.ok and have.stdout.split()[:1] == [digest]):
        executor.run(["mkdir", "-p", IMAGE_DIR], repeatable=True).check()
        executor.put(remote, local.read_bytes())
        have = executor.run(["sha256sum", remote], repeatable=True).check()
        if have.stdout.split()[:1] != [digest]:
            raise InfrastructureError(f"uploading {local.name} to dom0 corrupted it")
    return remote


@dataclass(frozen=True)
class Boot:
    """One domU's kernel, ramdisk (paths in dom0), command line and memory."""

    kernel: str
    ramdisk: str | None
    cmdline: str
    memory_mib: int


class DomainImage:
    """What a campaign's domUs boot on one dom0: xtalk's image (the same for every run) for
    its own guests, each foreign guest's own files."""

    def __init__(self, kind: str, arch: str):
        self.kind, self.arch = kind, arch
        self.kernel: str | None = None
        self.ramdisk: str | None = None
        self.local: list[tuple[Path, str]] | None = None  # (kernel, sha256)[, (ramdisk, sha256)]
        self.info: dict = {}
        self.foreign: dict[str, dict] = {}  # a foreign guest's file -> its sha256 and path in dom0

    def _local_files(self) -> list[Path]:
        """[kernel] or [kernel, ramdisk] on this machine, built on first use; self.info describes them."""
        if self.kind == "linux-rt":
            image = linux_rt.build(self.arch, log=lambda msg: None)
            self.info = {"image": str(image.dir / "vmlinuz"), **image.metadata()}
            return [image.dir / "vmlinuz", image.initrd]
        target, rel = PROBE_IMAGES[self.arch]
        local = artifacts.build(target, rel)
        self.info = {"image": str(local)}
        return [local]

    def upload(self, executor, run: Callable, guests: tuple[GuestPlan, ...]) -> None:
        """Make sure dom0 has what the guests of a run boot (checked every run: dom0 may have
        rebooted); xtalk's image is built only when one of them is xtalk's."""
        if not all(g.foreign for g in guests):
            self._upload_own(executor, run)
        for path in sorted({p for g in guests if g.foreign for p in (g.image, g.initrd) if p}):
            digest = self.foreign.get(path, {}).get("sha256") or artifacts.file_hash(Path(path))
            self.foreign[path] = {"sha256": digest, "dom0_path": upload(executor, run, Path(path), digest)}
        if self.foreign:
            self.info["foreign_images"] = self.foreign

    def _upload_own(self, executor, run: Callable) -> None:
        if self.local is None:  # built and hashed once per campaign
            self.local = [(path, artifacts.file_hash(path)) for path in self._local_files()]
        remote = [upload(executor, run, path, digest) for path, digest in self.local]
        self.kernel, self.ramdisk = remote[0], (remote[1] if len(remote) > 1 else None)
        self.info |= {"image_kind": self.kind, "image_sha256": self.local[0][1], "dom0_path": self.kernel}
        if self.ramdisk:
            self.info["dom0_ramdisk"] = self.ramdisk

    def boot(self, guest: GuestPlan, run: RunPlan, opts: XenOptions, tsc_hz: int | None) -> Boot:
        if guest.foreign:
            ramdisk = self.foreign[guest.initrd]["dom0_path"] if guest.initrd else None
            return Boot(self.foreign[guest.image]["dom0_path"], ramdisk, guest.append,
                        opts.memory_mib or FOREIGN_MEMORY_MIB)
        return Boot(self.kernel, self.ramdisk, self.cmdline(guest, run, opts, tsc_hz), opts.memory)

    def cmdline(self, guest: GuestPlan, run: RunPlan, opts: XenOptions, tsc_hz: int | None) -> str:
        args = workload_args(guest, run)
        if guest.role == "measurer" and not any(a.startswith("buffer_slots=") for a in args):
            args.append(f"buffer_slots={opts.slots}")
        if self.kind == "linux-rt":
            return linux_rt.guest_cmdline("hvc0", args + ["platform=xen"])
        freq = opts.freq_hz or tsc_hz
        if freq and not any(a.startswith("freq_hz=") for a in args):
            args.append(f"freq_hz={freq}")
        return " ".join(args)
