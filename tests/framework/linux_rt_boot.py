"""Boot the Linux-RT image directly under QEMU TCG with a workload on the kernel command
line, without a ring (samples drained as XT SAMPLE lines), and return the console text.
Used by tests/integration/test_linux_rt.py and to record tests/data/linux_rt/*.log:

    .venv/bin/python -m tests.framework.linux_rt_boot record
"""
from __future__ import annotations

import subprocess
import sys

from tests.framework.repo import ROOT
from xtalk.images import linux_rt

DATA = ROOT / "tests" / "data" / "linux_rt"
MACHINE = {"x86_64": (["qemu-system-x86_64", "-M", "pc"], "ttyS0", "pc"),
           "arm64": (["qemu-system-aarch64", "-M", "virt,gic-version=3", "-cpu", "cortex-a57"], "ttyAMA0", "virt")}
# name -> workload parameters (besides run= and platform=) of each recorded log
RECORDINGS = {
    "cyclictest": "bench=cyclictest duration_s=1 interval_us=2000",
    "kernel_ops": "bench=kernel_ops iterations=20 warmup=5",
    "tm_preempt": "bench=tm_preempt interval_s=0.5 duration_s=1.5",
    "tm_preempt_starved": "bench=tm_preempt interval_s=0.5 duration_s=1.5 starve=2",
    "tm_coop": "bench=tm_coop interval_s=0.5 duration_s=1",
    "tm_interrupt": "bench=tm_interrupt interval_s=0.5 duration_s=1",
    "tm_message": "bench=tm_message interval_s=0.5 duration_s=1",
    "tm_sync": "bench=tm_sync interval_s=0.5 duration_s=1",
    "tm_memory": "bench=tm_memory interval_s=0.5 duration_s=1",
    "stress_ng": "bench=stress_ng role=stressor class=cpu duration_s=1",
}


def boot(params: str, run: str = "rec", arch: str = "x86_64", timeout: float = 120) -> str:
    image = linux_rt.build(arch, log=lambda msg: None)
    qemu, console, platform = MACHINE[arch]
    tokens = f"{params} run={run} platform={platform}".split()
    cmdline = f"console={console} quiet panic=-1 noirqdebug " + " ".join(f"xtalk.{t}" for t in tokens)
    proc = subprocess.run([*qemu, "-accel", "tcg", "-m", "256M", "-nodefaults", "-no-user-config",
                           "-display", "none", "-serial", "stdio", "-no-reboot", "-kernel", str(image.kernel),
                           "-initrd", str(image.initrd), "-append", cmdline],
                          capture_output=True, text=True, timeout=timeout)
    return proc.stdout


def record() -> None:
    DATA.mkdir(parents=True, exist_ok=True)
    for name, params in RECORDINGS.items():
        text = boot(params)
        (DATA / f"{name}.log").write_text(text)
        print(f"{name}: {len(text.splitlines())} lines")


if __name__ == "__main__" and sys.argv[1:] == ["record"]:
    record()
