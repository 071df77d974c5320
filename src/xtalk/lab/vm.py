"""Start, find and stop the Xen lab: Xen + dom0 booted under QEMU (TCG), left running in
the background so one lab serves many campaigns.

State of a running lab: ~/.cache/xtalk/lab/run/<arch>/ holds state.json (QEMU's pid,
the ssh port forwarded to dom0's port 22, the lab image directory), serial.log (Xen's
and dom0's console from boot on), serial.sock (an interactive console:
`socat - UNIX-CONNECT:serial.sock`) and the ssh control socket. A lab is "up" when its
QEMU process is alive and dom0 answers over ssh with the pinned host key.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from ..errors import InfrastructureError
from ..files import NotRegular, read_regular, write_atomic
from ..host.arches import FACTS
from .recipe import LAB_DIR, READY_MARK, LabImage, build, recipe

RUN_DIR = LAB_DIR / "run"
BOOT_TIMEOUT_S = 240.0
DEFAULTS = {"cpus": 3, "memory_mib": 3072, "dom0_mem_mib": 768}
KERNEL_ADDR = 0x50000000  # arm64: where QEMU's loader puts dom0's kernel and initrd


@dataclass
class Lab:
    arch: str
    state: dict

    @property
    def dir(self) -> Path:
        return RUN_DIR / self.arch

    @property
    def image(self) -> LabImage:
        return LabImage(self.arch, Path(self.state["image_dir"]))

    def alive(self) -> bool:
        return _pid_is_lab(self.state.get("pid"), self.dir)

    def executor(self):
        from ..remote.executors import SshExecutor
        img = self.image.dir
        return SshExecutor(host="127.0.0.1", port=self.state["ssh_port"], user="root",
                           identity=img / "id_ed25519", known_hosts=img / "known_hosts",
                           host_key_alias=f"xtalk-lab-{self.arch}", control_dir=self.dir,
                           use_user_config=False, label=f"lab {self.arch}")

    def serial_tail(self, lines: int = 25) -> str:
        log = self.dir / "serial.log"
        if not log.exists():
            return ""
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


def _pid_is_lab(pid: int | None, run_dir: Path) -> bool:
    if not pid:
        return False
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return False
    return str(run_dir) in cmdline


class DamagedState(InfrastructureError):
    """A lab's state.json that cannot be read (torn, edited, not a file): the message names it
    and what `xtalk lab stop` does about it."""


CLEARS_IT = "`xtalk lab stop` stops the QEMU this lab directory started and removes the file"


def _state(state_file: Path) -> dict | None:
    """The lab's state from state_file, None where there is none, or DamagedState."""
    try:
        state = json.loads(read_regular(state_file))
    except FileNotFoundError:
        return None
    except (NotRegular, ValueError, OSError) as err:
        why = err.strerror if isinstance(err, OSError) else f"not JSON: {err}"
        raise DamagedState(f"{state_file}: the lab's state cannot be read ({why}); {CLEARS_IT}") from None
    if not isinstance(state, dict) or not isinstance(state.get("pid"), int) or \
            not isinstance(state.get("ssh_port"), int) or not isinstance(state.get("image_dir"), str):
        raise DamagedState(f"{state_file}: the lab's state lacks its pid, ssh_port or image_dir; {CLEARS_IT}")
    return state


def current(arch: str) -> Lab | None:
    """The running lab for arch, or None (DamagedState where its state file cannot be read)."""
    arch = recipe(arch).arch
    state = _state(RUN_DIR / arch / "state.json")
    if state is None:
        return None
    lab = Lab(arch, state)
    return lab if lab.alive() else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _xen_args(arch: str, cpus: int, dom0_mem: int) -> str:
    # a dom0 vCPU per pCPU, pinned 1:1; only vCPU 0 online (DOM0_ARGS_ARM64; on x86-64 dom0's /init: recipe.py)
    common = f"dom0_mem={dom0_mem}M,max:{dom0_mem}M dom0_max_vcpus={cpus} dom0_vcpus_pin sched=credit2 noreboot"
    if arch == "arm64":
        return f"console=dtuart dtuart=/pl011@9000000 {common}"
    return f"console=com1 com1=115200,8n1 {common}"


DOM0_ARGS = "console=hvc0 earlyprintk=xen loglevel=4 rdinit=/init"
# arm64: dom0's Linux boots on vCPU 0 alone (the others stay offline, each can be brought
# online later: a dom0 stressor's), so booting under TCG does not wait for the others to
# come up (docs/xen.md has the timings). Not on x86-64: a PV dom0 drops the vCPUs beyond
# maxcpus= from its possible CPUs, for good.
DOM0_ARGS_ARM64 = f"{DOM0_ARGS} maxcpus=1"


def qemu_argv(arch: str, img: LabImage, run_dir: Path, port: int, cpus: int, memory_mib: int,
              dom0_mem: int, dtb: Path | None = None) -> list[str]:
    serial = ["-chardev", f"socket,id=ser0,path={run_dir / 'serial.sock'},server=on,wait=off,"
                          f"logfile={run_dir / 'serial.log'},logappend=off", "-serial", "chardev:ser0"]
    net = ["-netdev", f"user,id=n0,hostfwd=tcp:127.0.0.1:{port}-:22"]
    common = ["-accel", "tcg,thread=multi", "-smp", str(cpus), "-m", f"{memory_mib}M", "-nodefaults",
              "-no-user-config", "-display", "none", "-monitor", "none", "-name", f"xtalk-lab-{arch}",
              "-qmp", f"unix:{run_dir / 'qmp.sock'},server=on,wait=off", *serial, *net]
    if arch == "arm64":
        argv = [FACTS[arch].qemu_system, "-machine", "virt,virtualization=on,gic-version=3", "-cpu", "cortex-a57",
                *common, "-device", "virtio-net-device,netdev=n0", "-kernel", str(img.path("xen"))]
        if dtb is not None:
            kernel, initrd = img.path("kernel"), img.path("initrd")
            initrd_addr = _align(KERNEL_ADDR + kernel.stat().st_size, 2 << 20)
            argv += ["-dtb", str(dtb),
                     "-device", f"loader,file={kernel},addr={KERNEL_ADDR:#x},force-raw=on",
                     "-device", f"loader,file={initrd},addr={initrd_addr:#x},force-raw=on"]
        return argv
    return [FACTS[arch].qemu_system, "-machine", "pc", "-cpu", "qemu64,+svm,+npt,-rdtscp,+invtsc", *common,
            "-device", "virtio-net-pci,netdev=n0",
            "-kernel", str(img.path("xen")), "-append", _xen_args(arch, cpus, dom0_mem),
            "-initrd", f"{img.path('kernel')} {DOM0_ARGS},{img.path('initrd')}"]


def _align(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def _arm64_dtb(img: LabImage, run_dir: Path, cpus: int, memory_mib: int, dom0_mem: int) -> Path:
    """QEMU virt's DTB, extended with Xen's /chosen entries (bootargs, dom0 modules)."""
    for tool in ("fdtput",):
        if not shutil.which(tool):
            raise InfrastructureError(f"{tool} not found (apt-get install device-tree-compiler)")
    dtb = run_dir / "virt.dtb"
    argv = qemu_argv("arm64", img, run_dir, 0, cpus, memory_mib, dom0_mem)
    i = argv.index("virt,virtualization=on,gic-version=3")
    argv[i] += f",dumpdtb={dtb}"
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    if not dtb.exists():
        raise InfrastructureError(f"QEMU could not dump the virt DTB: {proc.stderr.strip()}")
    kernel, initrd = img.path("kernel"), img.path("initrd")
    initrd_addr = _align(KERNEL_ADDR + kernel.stat().st_size, 2 << 20)

    def put(*args: str) -> None:
        r = subprocess.run(["fdtput", str(dtb), *args], capture_output=True, text=True)
        if r.returncode:
            raise InfrastructureError(f"fdtput {' '.join(args)}: {r.stderr.strip()}")

    put("-t", "s", "/chosen", "xen,xen-bootargs", _xen_args("arm64", cpus, dom0_mem))
    put("-t", "s", "/chosen", "xen,dom0-bootargs", DOM0_ARGS_ARM64)
    put("-t", "i", "/chosen", "#address-cells", "2")
    put("-t", "i", "/chosen", "#size-cells", "2")
    for n, (compat, addr, size) in enumerate((("multiboot,kernel", KERNEL_ADDR, kernel.stat().st_size),
                                              ("multiboot,ramdisk", initrd_addr, initrd.stat().st_size))):
        node = f"/chosen/module@{n}"
        put("-c", node)
        put("-t", "s", node, "compatible", compat, "multiboot,module")
        put("-t", "x", node, "reg", "0", f"{addr:x}", "0", f"{size:x}")
    return dtb


def start(arch: str, cpus: int | None = None, memory_mib: int | None = None, log=print,
          timeout_s: float = BOOT_TIMEOUT_S, xen: str = "debian") -> Lab:
    """Build if needed, boot, wait until dom0 answers over ssh. Reuses a running lab
    that boots the same Xen flavour; one with another is an error (stop it first)."""
    r = recipe(arch)
    lab = current(r.arch)
    if lab is not None:
        running = lab.image.info.get("xen_flavour", "debian")
        if running != xen:
            raise InfrastructureError(f"the running {r.arch} Xen lab boots the {running!r} Xen, not {xen!r}: "
                                      f"stop it first (xtalk lab stop --arch {r.arch})")
        log(f"the {r.arch} Xen lab is already running (pid {lab.state['pid']}, ssh port {lab.state['ssh_port']})")
        return lab
    img = build(r.arch, log=log, xen=xen)
    cpus = cpus or DEFAULTS["cpus"]
    memory_mib = memory_mib or DEFAULTS["memory_mib"]
    dom0_mem = DEFAULTS["dom0_mem_mib"]
    run_dir = RUN_DIR / r.arch
    shutil.rmtree(run_dir, ignore_errors=True)
    run_dir.mkdir(parents=True)
    dtb = _arm64_dtb(img, run_dir, cpus, memory_mib, dom0_mem) if r.arch == "arm64" else None
    port = _free_port()
    argv = qemu_argv(r.arch, img, run_dir, port, cpus, memory_mib, dom0_mem, dtb)
    if not shutil.which(argv[0]):
        raise InfrastructureError(f"{argv[0]} not found (apt-get install qemu-system-arm / qemu-system-x86)")
    started = time.monotonic()
    with open(run_dir / "qemu.log", "wb") as err:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=err, stderr=err, start_new_session=True)
    state = {"arch": r.arch, "pid": proc.pid, "ssh_port": port, "image_dir": str(img.dir), "argv": argv,
             "cpus": cpus, "memory_mib": memory_mib, "dom0_mem_mib": dom0_mem, "started_at": time.time()}
    write_atomic(run_dir / "state.json", json.dumps(state, indent=2) + "\n")
    lab = Lab(r.arch, state)
    try:
        ready_s = _wait_ready(lab, proc, started, timeout_s)
    except BaseException:
        stop(r.arch, quiet=True)
        raise
    state |= {"boot_s": round(ready_s, 1), "ssh_s": round(time.monotonic() - started, 1)}
    write_atomic(run_dir / "state.json", json.dumps(state, indent=2) + "\n")
    log(f"the {r.arch} Xen lab is up: dom0 shell after {state['boot_s']} s, ssh after {state['ssh_s']} s "
        f"(pid {proc.pid}, ssh port {port})")
    return lab


def _wait_ready(lab: Lab, proc: subprocess.Popen, started: float, timeout_s: float) -> float:
    log = lab.dir / "serial.log"
    ready = None
    while time.monotonic() - started < timeout_s:
        if proc.poll() is not None:
            qemu_err = (lab.dir / "qemu.log").read_text(errors="replace").strip()
            raise InfrastructureError(f"the {lab.arch} lab's QEMU exited ({proc.returncode}): {qemu_err}\n"
                                      f"serial console:\n{lab.serial_tail()}")
        text = log.read_text(errors="replace") if log.exists() else ""
        if "Kernel panic" in text or "Panic on CPU" in text:
            raise InfrastructureError(f"the {lab.arch} lab did not boot:\n{lab.serial_tail(40)}")
        if ready is None and READY_MARK in text:
            ready = time.monotonic() - started
        if ready is not None:
            try:
                lab.executor().run(["true"], timeout=20, repeatable=True)
                return ready
            except InfrastructureError:
                pass
        time.sleep(0.5)
    raise InfrastructureError(f"the {lab.arch} lab was not up after {timeout_s:g} s; serial console:\n"
                              f"{lab.serial_tail(40)}")


def _lab_pids(run_dir: Path) -> list[int]:
    """The processes whose command line names run_dir: the QEMU this module started there
    (a lab whose state file was lost or torn)."""
    return sorted(int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit() and _pid_is_lab(int(p.name), run_dir))


def _end(pid: int, run_dir: Path) -> None:
    os.kill(pid, signal.SIGTERM)
    for _ in range(100):
        if not _pid_is_lab(pid, run_dir):
            break
        time.sleep(0.05)
    else:
        os.kill(pid, signal.SIGKILL)
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


def stop(arch: str, quiet: bool = False, log=print) -> bool:
    """Stop the lab's QEMU (only the process this module started: its pid in state.json, or,
    where that file is damaged, the processes whose command line names the lab's directory).
    True if one ran."""
    arch = recipe(arch).arch
    run_dir = RUN_DIR / arch
    state_file = run_dir / "state.json"
    try:
        state = _state(state_file)
    except DamagedState:
        state = None
        pids = _lab_pids(run_dir)
        if not quiet:
            log(f"{state_file}: damaged; removed" + (f", and stopped the QEMU that ran in {run_dir} (pid "
                                                     f"{', '.join(map(str, pids))})" if pids else ""))
    else:
        if state is None:
            return False
        pids = [state["pid"]] if _pid_is_lab(state["pid"], run_dir) else []
    for pid in pids:
        _end(pid, run_dir)
    if state is not None:
        try:
            Lab(arch, state).executor().close()
        except Exception:  # noqa: BLE001 - no master connection: nothing to close
            pass
    try:
        state_file.unlink(missing_ok=True)
    except OSError as err:
        raise InfrastructureError(f"{state_file}: cannot be removed ({err.strerror}); remove it by hand") from None
    if pids and state is not None and not quiet:
        log(f"stopped the {arch} Xen lab (pid {pids[0]})")
    return bool(pids)
