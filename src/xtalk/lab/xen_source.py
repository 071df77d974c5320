"""The lab's "all-schedulers" Xen: the hypervisor built from Debian's xen source package
with every scheduler (credit, credit2, RTDS, null, ARINC653; the last three are marked
UNSUPPORTED upstream and so are off in Debian's binary), for trying the xen backend's
RTDS / null paths against real Xen. Dom0 keeps Debian's binary 4.17 tools (the same
4.17 hypercall interface).

Source: the newest 4.17 version the deb-src indexes list that the mirror serves (a
security update's source can be missing from a mirror: older versions are tried next),
unpacked with Debian's patches (images.apt.PrivateApt, arch "source"). Build: arm64 only,
cross-compiled with Debian's aarch64-linux-gnu gcc (defconfig + the schedulers, HYPFS
with the build config, so the backend reads the schedulers from /buildinfo/config);
needs bison and flex (Xen's kconfig). Several minutes on 2 cores the first time, then
cached under <cache>/lab/xen-<arch>-<hash>/ (hash of version, config and this recipe).
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from ..host.arches import FACTS
from ..errors import InfrastructureError
from ..cache import cache_dir
from ..images.apt import SOURCE, PrivateApt

FLAVOURS = ("debian", "all-schedulers")
SOURCE_SERIES = "4.17"
# EXPERT makes the Schedulers menu visible (else kconfig keeps its defaults)
EXTRA_CONFIG = ("CONFIG_EXPERT=y", "CONFIG_UNSUPPORTED=y", "CONFIG_SCHED_RTDS=y", "CONFIG_SCHED_NULL=y",
                "CONFIG_SCHED_ARINC653=y", "CONFIG_HYPFS=y", "CONFIG_HYPFS_CONFIG=y")
CROSS = FACTS["arm64"].triplet  # the only arch it is built for
MAKE_ARGS = {"arm64": ("XEN_TARGET_ARCH=arm64", f"CROSS_COMPILE={CROSS}-")}
TOOLS = (f"{CROSS}-gcc", "bison", "flex", "dpkg-source", "make", "python3")
BUILD_VERSION = "1"


def _make(tree: Path, arch: str, *targets: str, log_file: Path) -> None:
    argv = ["make", "-C", "xen", f"-j{os.cpu_count() or 1}", *MAKE_ARGS[arch], *targets]
    with open(log_file, "ab") as log:
        proc = subprocess.run(argv, cwd=tree, stdout=log, stderr=subprocess.STDOUT)
    if proc.returncode != 0:
        tail = log_file.read_text(errors="replace").strip().splitlines()[-8:]
        raise InfrastructureError(f"building Xen ({' '.join(targets) or 'xen'}) failed: {' | '.join(tail)}")


def build(arch: str, log=print) -> tuple[Path, dict]:
    """The hypervisor binary for arch (built or cached) and what it was built from."""
    if arch not in MAKE_ARGS:
        raise InfrastructureError(f"the all-schedulers Xen is built for {', '.join(MAKE_ARGS)} only, not {arch}")
    apt = PrivateApt(SOURCE, cache_dir(), log)
    apt.update()
    versions = [v for v in apt.source_versions("xen") if v.startswith(SOURCE_SERIES)]
    problems = []
    for version in versions:
        key = hashlib.sha256(json.dumps([BUILD_VERSION, arch, version, EXTRA_CONFIG]).encode()).hexdigest()[:16]
        out = cache_dir() / "lab" / f"xen-{arch}-{key}"
        if (out / "build.json").is_file():
            return out / "xen", json.loads((out / "build.json").read_text())
        try:
            tree = apt.fetch_source("xen", version)
        except InfrastructureError as err:
            problems.append(f"{version}: {err}")
            continue
        return _compile(tree, arch, version, out, log)
    raise InfrastructureError(f"no xen {SOURCE_SERIES} source package could be fetched: {'; '.join(problems)}")


def _compile(tree: Path, arch: str, version: str, out: Path, log) -> tuple[Path, dict]:
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if missing:
        raise InfrastructureError(f"building Xen needs {', '.join(missing)} (scripts/setup.sh --apt-only installs them)")
    started = time.monotonic()
    log(f"building Xen {version} for {arch} with every scheduler (several minutes the first time)")
    with tempfile.TemporaryDirectory(dir=cache_dir() / "lab", prefix=f".xen-{arch}-") as tmp:
        work = Path(tmp) / "tree"
        shutil.copytree(tree, work, symlinks=True)
        log_file = Path(tmp) / "build.log"
        _make(work, arch, "defconfig", log_file=log_file)
        with open(work / "xen" / ".config", "a") as config:
            config.write("".join(f"{line}\n" for line in EXTRA_CONFIG))
        _make(work, arch, "olddefconfig", log_file=log_file)
        config = (work / "xen" / ".config").read_text()
        absent = [line for line in EXTRA_CONFIG if f"\n{line}\n" not in f"\n{config}"]
        if absent:
            raise InfrastructureError(f"Xen's kconfig dropped {', '.join(absent)}")
        _make(work, arch, log_file=log_file)
        staged = Path(tmp) / "out"
        staged.mkdir()
        shutil.copy2(work / "xen" / "xen", staged / "xen")
        shutil.copy2(work / "xen" / ".config", staged / "config")
        info = {"flavour": "all-schedulers", "source": f"xen {version}", "arch": arch, "config": list(EXTRA_CONFIG),
                "build_s": round(time.monotonic() - started, 1)}
        (staged / "build.json").write_text(json.dumps(info, indent=2) + "\n")
        shutil.rmtree(out, ignore_errors=True)
        staged.rename(out)
    log(f"built Xen {version} for {arch} in {info['build_s']} s")
    return out / "xen", info
