"""Facts about the host that change how timing numbers read: CPU, caches, isolation,
frequency governor, kernel, KVM (and which kind), and what each backend adds under its
kind (Backend.host_facts: QEMU's versions, the Xen this host runs under...).

Reads /proc and /sys and asks the tools for --version; every probe is best-effort and
says 'unknown' rather than failing. Caveat: cache sizes are those of CPU 0.
"""
from __future__ import annotations

import functools
import json
import os
import platform
import re
import shutil
import subprocess
from pathlib import Path

from .. import plugins
from ..cache import program_key, recall, remember

SYS_CPU = Path("/sys/devices/system/cpu")


def read_fact(path: str | Path, default: str = "") -> str:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return default


def _size_bytes(text: str) -> int:
    m = re.fullmatch(r"(\d+)\s*([KMG]?)", text.strip())
    if not m:
        return 0
    return int(m.group(1)) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[m.group(2)]


def cpu_model() -> str:
    for line in read_fact("/proc/cpuinfo").splitlines():
        if line.lower().startswith(("model name", "cpu model")):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def caches(cpu: int = 0) -> list[dict]:
    out = []
    for index in sorted((SYS_CPU / f"cpu{cpu}" / "cache").glob("index*")):
        out.append({
            "level": int(read_fact(index / "level", "0") or 0),
            "type": read_fact(index / "type", "unknown"),
            "size_bytes": _size_bytes(read_fact(index / "size", "0")),
            "shared_cpus": read_fact(index / "shared_cpu_list"),
            "line_bytes": int(read_fact(index / "coherency_line_size", "0") or 0),
        })
    return out


def llc_bytes() -> int:
    sizes = [c for c in caches() if c["type"] in ("Unified", "Data")]
    return max(sizes, key=lambda c: c["level"])["size_bytes"] if sizes else 0


def kvm_info() -> dict:
    """Whether /dev/kvm is usable and which module serves it (kvm_intel, kvm_amd, kvm_pvm...)."""
    present = os.path.exists("/dev/kvm")
    usable = present and os.access("/dev/kvm", os.R_OK | os.W_OK)
    kinds = [m for m in ("kvm_pvm", "kvm_intel", "kvm_amd") if Path("/sys/module", m).exists()]
    kind = kinds[0] if kinds else ("kvm" if Path("/sys/module/kvm").exists() else "")
    why = "" if usable else ("/dev/kvm missing" if not present else "/dev/kvm not accessible to this user")
    flags = read_fact("/proc/cpuinfo")
    return {
        "available": usable, "kind": kind or "unknown", "reason": why,
        "hardware_virt": bool(re.search(r"\b(vmx|svm)\b", flags)),
        "emulates_ring0": kind == "kvm_pvm",
    }


_versions: dict[tuple[str, ...], str | None] = {}  # asked once per process
VERSIONS_KEPT = "tool-versions.json"  # and kept from one command to the next (cache.py)


def tool_version(argv: list[str]) -> str | None:
    """The first line a tool prints for `argv` (its --version), asked once per process."""
    return tool_versions([argv])[0]


def _kept_key(argv: tuple[str, ...]) -> str | None:
    """What a tool's answer to `argv` depends on: its program's file and the arguments."""
    program = shutil.which(argv[0])
    build = program and program_key(program)
    return build and json.dumps([build, *argv[1:]])


def tool_versions(argvs: list[list[str]]) -> list[str | None]:
    """tool_version of each: the one kept for the tool's program file (~50 ms a QEMU at each
    command's start otherwise), else asked, the tools not asked yet started at once."""
    asked = [tuple(argv) for argv in argvs]
    started = {}
    for argv in dict.fromkeys(a for a in asked if a not in _versions):
        key = _kept_key(argv)
        if key and isinstance(version := recall(VERSIONS_KEPT, key), str):
            _versions[argv] = version
            continue
        try:
            started[argv] = key, subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                                  stderr=subprocess.PIPE, text=True) if key else None
        except OSError:
            started[argv] = key, None
    for argv, (key, proc) in started.items():
        _versions[argv] = _first_line(proc)
        if key and _versions[argv] is not None:
            remember(VERSIONS_KEPT, key, _versions[argv])
    return [_versions[a] for a in asked]


def _first_line(proc: subprocess.Popen | None) -> str | None:
    if proc is None:
        return None
    try:
        out, err = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return None
    first = (out or err).strip().splitlines()
    return first[0] if first else None


def isolation() -> dict:
    cmdline = read_fact("/proc/cmdline")
    m = re.search(r"\bisolcpus=(\S+)", cmdline)
    return {
        "isolcpus": read_fact(SYS_CPU / "isolated") or (m.group(1) if m else ""),
        "nohz_full": read_fact(SYS_CPU / "nohz_full"),
        "kernel_cmdline": cmdline,
        **rt_throttling(),
    }


def rt_throttling() -> dict:
    """The kernel's budget for real-time tasks: `rt_runtime_us` of every `rt_period_us`
    (-1: no limit; None where the kernel does not say)."""
    out = {}
    for key in ("rt_runtime_us", "rt_period_us"):
        text = read_fact(f"/proc/sys/kernel/sched_{key}")
        out[key] = int(text) if text.lstrip("-").isdigit() else None
    return out


def rt_block_us(isolation: dict) -> int | None:
    """What a real-time task that spins loses each period to the throttle (µs), from the
    facts rt_throttling() stored; None where nothing is throttled or the host did not say."""
    runtime, period = isolation.get("rt_runtime_us"), isolation.get("rt_period_us")
    if runtime is None or not period or not 0 <= runtime < period:
        return None
    return period - runtime


def governors() -> dict[str, str]:
    out = {}
    for gov in sorted(SYS_CPU.glob("cpu[0-9]*/cpufreq/scaling_governor")):
        out[gov.parent.parent.name] = read_fact(gov)
    return out


@functools.cache
def machine_facts() -> dict:
    """The machine's own facts, without the backends' (what a spec's cache sizes resolve
    against: `xtalk spec check` asks no backend's tools); once per process (callers must
    not modify the result)."""
    uname = platform.uname()
    return {
        "hostname": uname.node,
        "machine": uname.machine,
        "kernel": f"{uname.system} {uname.release} {uname.version}",
        "cpu_model": cpu_model(),
        "online_cpus": os.cpu_count(),
        "allowed_cpus": sorted(os.sched_getaffinity(0)),
        "caches": caches(),
        "llc_bytes": llc_bytes(),
        "governors": governors() or "no cpufreq (virtual machine or fixed frequency)",
        "isolation": isolation(),
        "kvm": kvm_info(),
    }


@functools.cache
def host_facts() -> dict:
    """The machine's facts and what each backend adds (its tools' versions), stored with
    every run; once per process (callers must not modify the result)."""
    return {**machine_facts(), **plugins.host_facts(), "python": platform.python_version()}
