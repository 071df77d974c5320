"""The `qemu` backend: each guest is one QEMU process (KVM where the host offers it, else
TCG; the run's metadata says which and why), started paused, its vCPU threads pinned
through QMP (`query-cpus-fast` thread ids; affinity verified), then continued. In a
campaign the next run's guests are launched (spawned -S) once the previous run's window
is over, while it ends and is stored, and settled (QMP, pinning) after it (launch/settle,
running/ahead.py): the run's start only continues them. Each prepared run keeps its files apart (RunFiles).

QMP: one end of a socket pair, given to QEMU as its monitor's socket (-chardev
socket,fd=N), spoken by qmp.py: no socket file to wait for; a QEMU that dies before its
greeting closes it.

Console: the guest's serial port on QEMU's stdout (a pipe). Samples: the guest's RAM is a
shared file (memory-backend-file, share=on) in /dev/shm and the ring lives at a fixed
guest-physical address in it, so the host reads samples without any VM exit. A probe
stressor gets a small ring at the same address, which counts its passes (xtalk.running.pressure);
a Linux-RT or foreign stressor has none (its record says so). QEMU's
stderr is kept in the run directory. Emulator threads go to housekeeping_cpus when the
spec gives them (else they float, and the metadata says so).
Caveat: on kvm-pvm hosts guest ring 0 is emulated; the probe guest measures in ring 3.

Option image: `probe` (default; the freestanding probe guest) or `linux-rt` (Debian's
PREEMPT_RT kernel + xtalk's initramfs, built and cached by xtalk.images.linux_rt; the
workload's key=value tokens go on the kernel command line as xtalk.KEY=VALUE). A Linux
guest on kvm-pvm runs under TCG (its kernel would be emulated anyway). Its ring is
guest memory the kernel leaves alone (x86: memmap=SIZE$ADDR; arm64: mem= below a ring
at the top of RAM) and xtalk-rt maps it from /dev/mem.

A foreign guest (the workload's own `image`, docs/guests.md) boots that image as it is:
`-kernel` (an x86-64 ELF, multiboot ELF or bzImage on `pc`/`q35`; an arm64 ELF or Image on
`virt` with the spec's GIC version and CPU), `-initrd` and `-append` when given, and
`-no-reboot`; no shared RAM or ring, no xtalk command line, no isa-debug-exit. Its console
goes to its output parser like any guest's. Accel: as for a Linux guest (a kernel's ring
0 would be emulated under kvm-pvm: TCG under `auto` there).
"""
from __future__ import annotations

import mmap
import os
import shutil
import socket
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ..images import artifacts
from ..plugins import BACKENDS
from ..host.arches import FACTS, host_arch, normalise
from ..errors import InfrastructureError
from ..host.metadata import host_facts, tool_version, tool_versions
from ..images import linux_rt
from ..images.linux_rt import LinuxRtImageFacts
from ..results.run_record import BackendMetadata, GuestFacts, Part
from ..spec.plan import GuestPlan, RunPlan
from ..spec.sizes import host_caches
from .guest_memory import FLOOR_MIB, probe_memory_mib
from .base import Backend, GuestHandle, Vitals, local_cpu_problems, workload_args
from .tsc import host_tsc_hz
from .hostproc import affinity, apply_policy, kill_and_reap, spawn, task_vitals
from .qmp import Qmp, QmpError
from .accel import choose_accel, choose_accel_linux

# Per guest architecture: RAM base, ring address, machine args (its probe images and
# QEMU binary: host/arches.py).
ARCHES = {
    "x86_64": {"ram_base": 0, "ring_gpa": 0x1000000, "machine": "microvm",
               "devices": ["-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]},
    "arm64": {"ram_base": 0x40000000, "ring_gpa": 0x41000000, "machine": "virt", "devices": []},
}
# microvm boots the PVH-only probe image (QEMU tries multiboot first when both entries
# exist); these machines the multiboot one.
MULTIBOOT_MACHINES = ("pc", "q35")
QMP_TIMEOUT_S = 10.0  # for QEMU's greeting and for each answer
# Linux-RT guests: machine, console, ring address (None: top of RAM, fenced off with mem=).
LINUX_RT = {
    "x86_64": {"machine": "pc", "console": "ttyS0", "ring_gpa": 0x8000000},
    "arm64": {"machine": "virt", "console": "ttyAMA0", "ring_gpa": None},
}
FOREIGN_MACHINE = {"x86_64": "pc", "arm64": "virt"}  # a foreign image's default machine
# Per guest architecture: the machine a trimmed QEMU build runs and that build (Debian's
# qemu-system-x86 ships it): ~10 shared libraries instead of ~50, so it reaches QMP in
# about a third of the time. It has no isa-debug-exit: the probe guest powers a microvm
# off through its ACPI GED instead (QEMU exits 0; XT END carries the status). Used for the
# probe image on that machine under KVM (the build has no TCG) when installed and the spec
# gives no extra_args.
TRIMMED_QEMU = {"x86_64": ("microvm", "qemu-system-x86_64-microvm")}


class QemuOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    arch: Literal["x86_64", "arm64"] = Field(default_factory=lambda: host_arch() or "x86_64",
                                             description="the guests' architecture (aarch64: the same as arm64)")
    machine: str | None = Field(default=None, description="microvm (x86 default; pc for a foreign image), pc, q35, "
                                "virt (arm64)")
    accel: Literal["auto", "kvm", "tcg"] = "auto"
    memory_mib: int | None = Field(default=None, ge=32, le=65536, description=
        "guest RAM; default: what the bench's buffers need on this host, at least 256 (linux-rt: 256)")
    cpu: str | None = Field(default=None, description="-cpu model; default: QEMU's (cortex-a57 on virt)")
    gic_version: Literal[2, 3] = 3
    ring_kib: int = Field(default=4096, ge=64, le=65536)
    extra_args: list[str] = Field(default_factory=list)
    image: Literal["probe", "linux-rt"] = Field(
        default="probe", description="probe (freestanding probe guest) or linux-rt (Debian PREEMPT_RT kernel)")

    @field_validator("arch", mode="before")
    @classmethod
    def _arch_alias(cls, value):
        return normalise(value) or value

    @model_validator(mode="after")
    def _linux_memory(self):
        memory = self.memory_mib or FLOOR_MIB
        if self.image == "linux-rt" and memory < linux_rt.MIN_MEMORY_MIB:
            raise ValueError(f"memory_mib must be >= {linux_rt.MIN_MEMORY_MIB} for image linux-rt")
        if self.image == "linux-rt" and self.ring_kib * 1024 > memory << 18:
            raise ValueError("ring_kib must be at most a quarter of memory_mib for image linux-rt")
        return self


class QemuMetadata(BackendMetadata, LinuxRtImageFacts):
    """metadata(): the machine, its accelerator and why, QEMU's version, the guest image
    (a Linux-RT one's facts too), the TSC's frequency and where the ring lies; a foreign
    image's accelerator and machine."""

    arch: str | None = None
    machine: str | None = None
    accel: str | None = None
    accel_reason: str | None = None
    memory_mib: int | str | None = None
    qemu_version: str | None = None
    image_kind: str | None = None
    image: str | None = None
    image_sha256: str | None = None
    host_tsc_hz: int | None = None
    ring_gpa: str | None = None
    foreign_accel: str | None = None
    foreign_accel_reason: str | None = None
    foreign_machine: str | None = None


class QemuVcpu(Part):
    vcpu: int
    thread_id: int
    cpu: int
    sched: str | None = None
    priority: int | None = None
    sched_refused: str | None = None


class QemuGuestFacts(GuestFacts):
    """A guest's QEMU: its command line and pid, each vCPU thread's CPU and scheduling, the
    emulator threads' CPUs, its accelerator, machine and memory."""

    argv: list[str] | None = None
    pid: int | None = None
    vcpus: list[QemuVcpu] | None = None
    affinity: list[int] | None = None
    sched: str | None = None
    emulator_threads: list[int] | None = None
    accel: str | None = None
    machine: str | None = None
    memory_mib: int | None = None


@BACKENDS.register
class QemuBackend(Backend):
    name = "qemu"
    Metadata = QemuMetadata
    GuestFacts = QemuGuestFacts
    boot_s = 2.0
    Options = QemuOptions
    launches_ahead = True

    @classmethod
    def host_facts(cls) -> dict:
        return dict(zip(ARCHES, tool_versions([[FACTS[arch].qemu_system, "--version"] for arch in ARCHES])))

    @classmethod
    def host_rows(cls, facts: dict) -> list[tuple[str, str]]:
        return [(f"QEMU {arch}", facts[arch] or "not found") for arch in ARCHES]

    @classmethod
    def version_rows(cls, facts: dict) -> list[tuple[str, str | None]]:
        return [("QEMU", facts.get("x86_64"))]

    @classmethod
    def check_spec(cls, raw: dict) -> list[tuple[tuple, str]]:
        return super().check_spec(raw) + local_cpu_problems(raw)  # vCPU and emulator threads: host CPUs

    @classmethod
    def guest_arch(cls, options: dict) -> str | None:
        return normalise(options["arch"]) if "arch" in options else host_arch()

    @classmethod
    def make_targets(cls, options: dict) -> tuple[str, ...]:
        """The probe image's target (prepare builds it), for the probe image only."""
        arch = cls.guest_arch(options)
        return (FACTS[arch].probe_target,) if options.get("image", "probe") == "probe" and arch in FACTS else ()

    @classmethod
    def accepts(cls, host: dict) -> tuple[bool, str]:
        emulators = [a.qemu_system for a in FACTS.values()]
        if not any(shutil.which(e) for e in emulators):
            return False, f"no {' or '.join(emulators)} on PATH (apt-get install qemu-system-x86)"
        return True, ""

    def __init__(self, options: dict):
        super().__init__(options)
        self.opts = QemuOptions.model_validate(options)
        self.arch, self.facts = ARCHES[self.opts.arch], FACTS[self.opts.arch]
        self.host = host_facts()
        self.linux = LINUX_RT[self.opts.arch] if self.opts.image == "linux-rt" else None
        chooser = choose_accel_linux if self.linux else choose_accel
        self.accel, self.accel_reason = chooser(self.opts.accel, self.opts.arch, self.host)
        self.foreign_accel, self.foreign_accel_reason = choose_accel_linux(self.opts.accel, self.opts.arch, self.host)
        self.foreign_run = False  # the run being prepared has a foreign guest
        self.ring_bytes = self.opts.ring_kib * 1024
        ram_end = self.arch["ram_base"] + ((self.opts.memory_mib or FLOOR_MIB) << 20)
        self.ring_gpa = (self.arch["ring_gpa"] if not self.linux else
                         self.linux["ring_gpa"] if self.linux["ring_gpa"] is not None else ram_end - self.ring_bytes)
        self.image: Path | None = None
        self.initrd: Path | None = None
        self.image_info = None
        self.freq_hz: int | None = None
        self._runs: dict[str, RunFiles] = {}  # by run id, prepared and not yet cleaned up: the next
        # run's guests are launched ahead (running/ahead.py) before the last one's are cleaned up
        self.version = tool_version([self.facts.qemu_system, "--version"])
        machine, binary = TRIMMED_QEMU.get(self.opts.arch, (None, None))
        self.trimmed = (machine, binary) if binary and not self.opts.extra_args and shutil.which(binary) else None

    def _host_tsc_hz(self) -> int | None:
        """The host TSC frequency, from the native program's calibration (x86 guests
        cannot calibrate reliably on microvm)."""
        if self.opts.arch != "x86_64" or normalise(self.host["machine"]) != "x86_64":
            return None
        return host_tsc_hz(artifacts.build("native", "build/native/xtalk-bench"))

    def prepare(self, run: RunPlan, run_dir: Path) -> None:
        self.foreign_run = any(g.foreign for g in run.guests)
        own = any(not g.foreign and not g.host for g in run.guests)  # xtalk's image is built only for those
        if own and self.image is None and self.linux:
            self.image_info = linux_rt.build(self.opts.arch, log=lambda msg: None)
            self.image, self.initrd = self.image_info.kernel, self.image_info.initrd
        elif own and self.image is None:
            machine = (self.opts.machine or self.arch["machine"]).split(",")[0]
            multiboot = self.facts.probe_multiboot if machine in MULTIBOOT_MACHINES else None
            self.image = artifacts.build(self.facts.probe_target, multiboot or self.facts.probe_image)
            self.freq_hz = self._host_tsc_hz()
        if not shutil.which(self.facts.qemu_system):
            raise InfrastructureError(f"{self.facts.qemu_system} not found (install QEMU for {self.opts.arch})")
        workdir = Path(f"/dev/shm/xtalk-{os.getpid()}-{run.run_id}")
        shutil.rmtree(workdir, ignore_errors=True)
        workdir.mkdir(parents=True)
        self._runs[run.run_id] = RunFiles(workdir, run_dir)

    def _linux_cmdline(self, guest: GuestPlan, run: RunPlan) -> str:
        """The ring fenced off from the kernel (memmap=/mem=), then linux_rt.guest_cmdline."""
        kernel = []
        args = workload_args(guest, run) + [f"platform={(self.opts.machine or self.linux['machine']).split(',')[0]}"]
        if guest.role == "measurer":
            if self.opts.arch == "x86_64":
                kernel.append(f"memmap={self.ring_bytes}${self.ring_gpa:#x}")
            else:
                kernel.append(f"mem={self.ring_gpa - self.arch['ram_base']}")
            args += [f"ring_gpa={self.ring_gpa:#x}", f"ring_bytes={self.ring_bytes}"]
        return linux_rt.guest_cmdline(self.linux["console"], args, tuple(kernel))

    def _cmdline(self, guest: GuestPlan, run: RunPlan) -> str:
        if self.linux:
            return self._linux_cmdline(guest, run)
        args = workload_args(guest, run)
        if self.freq_hz:
            args.append(f"freq_hz={self.freq_hz}")
        if not run.caches:  # a run planned outside a campaign: the host's, as the campaign would give
            args += [f"{level}_bytes={nbytes}" for level, nbytes in host_caches(self.host).items()]
        if self.ring_size(guest):
            args += [f"ring_gpa={self.ring_gpa:#x}", f"ring_bytes={self.ring_size(guest)}"]
        return " ".join(args)

    def ring_size(self, guest: GuestPlan) -> int | None:
        """The bytes of a guest's ring: the measurer's samples, or a probe stressor's passes;
        None: it has none (a foreign image; a Linux-RT stressor)."""
        from ..telemetry.ring import PASS_RING_CAPACITY, ring_bytes  # NumPy: once a guest is planned
        if guest.foreign or (self.linux and guest.role != "measurer"):
            return None
        return self.ring_bytes if guest.role == "measurer" else ring_bytes(PASS_RING_CAPACITY)

    def accel_of(self, guest: GuestPlan) -> str:
        return self.foreign_accel if guest.foreign else self.accel

    def machine_of(self, guest: GuestPlan) -> str:
        return self.opts.machine or (FOREIGN_MACHINE[self.opts.arch] if guest.foreign else
                                     (self.linux or self.arch)["machine"])

    def qemu_of(self, guest: GuestPlan) -> str:
        """The QEMU binary for this guest: the trimmed build for xtalk's probe image on its
        machine (TRIMMED_QEMU) where usable, else the full one."""
        if (self.trimmed and self.accel == "kvm" and not guest.foreign and not self.linux
                and self.machine_of(guest) == self.trimmed[0]):
            return self.trimmed[1]
        return self.facts.qemu_system

    def argv(self, guest: GuestPlan, run: RunPlan, ram: Path | None, qmp_fd: int) -> list[str]:
        o, accel, machine, qemu = self.opts, self.accel_of(guest), self.machine_of(guest), self.qemu_of(guest)
        if o.arch == "arm64":
            machine += f",gic-version={o.gic_version}"
        cpu = o.cpu or ("cortex-a57" if o.arch == "arm64" and accel == "tcg" else
                        "host" if o.arch == "arm64" else None)
        memory = self.memory_mib(guest, run)
        argv = [qemu, "-M", machine, "-accel", accel, "-m", f"{memory}M",
                "-nodefaults", "-no-user-config", "-display", "none", "-monitor", "none", "-serial", "stdio",
                "-chardev", f"socket,id=qmp,fd={qmp_fd}", "-mon", "chardev=qmp,mode=control", "-S",
                "-name", f"xtalk-{guest.name},debug-threads=on"]
        if guest.foreign:  # the user's image as it is; its poweroff, panic or reboot ends QEMU
            argv += ["-kernel", guest.image, "-no-reboot"] + (["-initrd", guest.initrd] if guest.initrd else [])
            argv += ["-append", guest.append] if guest.append else []
        else:
            argv += ["-object", f"memory-backend-file,id=mem,size={memory}M,mem-path={ram},share=on",
                     "-machine", "memory-backend=mem", "-kernel", str(self.image), "-append", self._cmdline(guest, run)]
            # Linux-RT: poweroff -f ends the guest; a panic or reboot ends QEMU too
            argv += (["-initrd", str(self.initrd), "-no-reboot"] if self.linux else
                     [] if qemu != self.facts.qemu_system else self.arch["devices"])
        if cpu:
            argv += ["-cpu", cpu]
        if guest.vcpus > 1:  # one thread per vCPU, each pinned to its CPU in start()
            argv += ["-smp", str(guest.vcpus)]
        return argv + list(o.extra_args)

    def memory_mib(self, guest: GuestPlan, run: RunPlan) -> int:
        """The spec's memory_mib, else what the guest's bench needs here with the run's
        caches (guest_memory.py); a Linux-RT guest or a foreign image gets FLOOR_MIB."""
        if self.opts.memory_mib is not None:
            return self.opts.memory_mib
        caches = dict(run.caches) or host_caches(self.host)
        return FLOOR_MIB if self.linux or guest.foreign else probe_memory_mib(guest, caches)

    def _make_ram(self, guest: GuestPlan, run: RunPlan, workdir: Path) -> Path:
        from ..telemetry.ring import HEADER_SIZE, init_ring
        ram = workdir / f"{guest.name}.ram"
        with open(ram, "wb") as f:
            f.truncate(self.memory_mib(guest, run) << 20)
        if size := self.ring_size(guest):
            offset = self.ring_gpa - self.arch["ram_base"]
            with open(ram, "r+b") as f, mmap.mmap(f.fileno(), 0) as m:
                init_ring(m, offset, (size - HEADER_SIZE) // 32)
        return ram

    def _connect_qmp(self, qmp: socket.socket, proc: subprocess.Popen, guest: GuestPlan,
                     log: Path) -> tuple[Qmp, list]:
        """The monitor, once QEMU greets, and its vCPUs (query-cpus-fast, asked at once);
        QEMU's stderr (`log`) tells why where it gave none."""
        monitor = Qmp(qmp, QMP_TIMEOUT_S)
        try:
            (vcpus,) = monitor.handshake("query-cpus-fast")
            return monitor, vcpus
        except QmpError as e:
            monitor.close()
            kill_and_reap(proc)
            raise InfrastructureError(f"{guest.name}: QEMU (exit status {proc.returncode}) gave no QMP ({e}): "
                                      f"{_tail(log)}") from e

    def start(self, guest: GuestPlan, run: RunPlan, paused: bool = False) -> GuestHandle:
        handle = self.launch(guest, run)
        self.settle(handle, run)
        if not paused:
            self.resume(handle)
        return handle

    def launch(self, guest: GuestPlan, run: RunPlan) -> GuestHandle:
        """QEMU spawned (-S: no vCPU runs), not yet waited for: its machine is set up while
        the caller does something else; settle() then speaks QMP and pins it."""
        files = self._runs[run.run_id]  # prepare(run) made them
        ram = None if guest.foreign else self._make_ram(guest, run, files.workdir)  # a foreign guest has no ring
        qmp, qemu_end = socket.socketpair()
        argv = self.argv(guest, run, ram, qemu_end.fileno())
        emulator_cpus = tuple(run.spec.housekeeping_cpus) or None
        log = files.run_dir / f"qemu-{guest.name}.log"
        try:
            with qemu_end, open(log, "ab") as stderr:
                proc = spawn(argv, emulator_cpus, stderr=stderr, pass_fds=(qemu_end.fileno(),))
        except BaseException:
            qmp.close()
            raise
        handle = GuestHandle(guest, console_fd=proc.stdout.fileno(), pids=[proc.pid])
        handle.backend_state = {"proc": proc, "qmp": None, "socket": qmp, "ram": ram, "argv": argv,
                                "emulator_cpus": emulator_cpus, "log": log, "files": files}
        return handle

    def settle(self, handle: GuestHandle, run: RunPlan) -> None:
        """A launched QEMU's QMP answered, its vCPU threads pinned (verified) and given the
        run's scheduling class, its rings opened: held paused until resume()."""
        from ..telemetry.ring import RingReader
        guest, state = handle.plan, handle.backend_state
        try:
            monitor, vcpus = self._connect_qmp(state.pop("socket"), state["proc"], guest, state["log"])
            state["qmp"] = monitor
            pinning = []
            for i, vcpu in enumerate(vcpus):
                tid, cpu = vcpu["thread-id"], guest.cpus[vcpu.get("cpu-index", i) % len(guest.cpus)]
                os.sched_setaffinity(tid, {cpu})
                got = affinity(tid)
                if got != [cpu]:
                    raise InfrastructureError(f"{guest.name}: vCPU {i} affinity {got} is not [{cpu}]")
                pinning.append({"vcpu": i, "thread_id": tid, "cpu": cpu,
                                **apply_policy(tid, run.spec.run.sched, run.spec.run.priority)})
            if self.ring_size(guest):
                reader = RingReader(state["ram"], offset=self.ring_gpa - self.arch["ram_base"])
                handle.ring, handle.passes = (reader, None) if guest.role == "measurer" else (None, reader)
            elif guest.role != "measurer":
                handle.no_passes = f"a {'foreign image' if guest.foreign else 'Linux-RT guest'} counts no passes"
        except BaseException:
            self.stop(handle)
            raise
        emulator_cpus = state["emulator_cpus"]
        handle.facts = {"argv": state["argv"], "pid": handle.pids[0], "vcpus": pinning,
                        "affinity": sorted({p["cpu"] for p in pinning}),
                        "sched": pinning[0]["sched"] if pinning else None,
                        "emulator_threads": list(emulator_cpus) if emulator_cpus else affinity(handle.pids[0]),
                        "accel": self.accel_of(guest), "machine": self.machine_of(guest),
                        "memory_mib": self.memory_mib(guest, run)}

    def pause(self, handle: GuestHandle) -> None:
        handle.backend_state["qmp"].cmd("stop")

    def resume(self, handle: GuestHandle) -> None:
        handle.backend_state["qmp"].cmd("cont")

    def poll_exit(self, handle: GuestHandle) -> int | None:
        return handle.backend_state["proc"].poll()

    def vitals(self, handle: GuestHandle, fresh: bool = False) -> Vitals | None:
        """The vCPU threads' CPU time (not the emulator's: it idles or works for others)."""
        vcpus = handle.facts.get("vcpus")
        if not vcpus or handle.backend_state["proc"].poll() is not None:
            return None
        return task_vitals(handle.pids[0], [v["thread_id"] for v in vcpus])

    def stop(self, handle: GuestHandle) -> None:
        state = handle.backend_state
        if state.get("qmp") is not None:
            state["qmp"].close()
            state["qmp"] = None
        if state.get("socket") is not None:  # launched, never settled
            state.pop("socket").close()
        kill_and_reap(state["proc"])
        state["files"].stopped.append(state["proc"])

    def cleanup(self, run: RunPlan) -> None:
        files = self._runs.pop(run.run_id, None)
        if files is not None:
            for proc in files.stopped:
                proc.stdout.close()
            shutil.rmtree(files.workdir, ignore_errors=True)

    def metadata(self) -> dict:
        meta = {"backend": self.name, "arch": self.opts.arch,
                "machine": self.opts.machine or (self.linux or self.arch)["machine"],
                "accel": self.accel, "accel_reason": self.accel_reason, "memory_mib": self.opts.memory_mib or "per guest (facts)",
                "qemu_version": self.version, "image_kind": self.opts.image,
                "image": str(self.image) if self.image else None,
                "image_sha256": artifacts.file_hash(self.image) if self.image else None,
                "host_tsc_hz": self.freq_hz, "ring_gpa": hex(self.ring_gpa)}
        if self.image_info is not None:
            meta.update(self.image_info.metadata())
        if self.foreign_run:  # the images themselves: the run's measurer/stressors (image, image_sha256)
            meta |= {"foreign_accel": self.foreign_accel, "foreign_accel_reason": self.foreign_accel_reason,
                     "foreign_machine": self.opts.machine or FOREIGN_MACHINE[self.opts.arch]}
        return meta


@dataclass
class RunFiles:
    """A prepared run's files: its guests' RAM (/dev/shm), its directory (QEMU's stderr
    there), its stopped QEMUs (their console pipes closed at cleanup)."""

    workdir: Path
    run_dir: Path
    stopped: list[subprocess.Popen] = field(default_factory=list)


def _tail(log: Path) -> str:
    """The last lines QEMU wrote to its stderr."""
    return " | ".join(log.read_text(errors="replace").strip().splitlines()[-5:]) if log.exists() else ""
