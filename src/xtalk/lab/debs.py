"""Debian packages for the lab images, fetched with apt's ordinary client.

Each architecture gets a private apt state (lists, cache) under ~/.cache/xtalk/apt/<arch>
that uses the host's sources.list, so fetching arm64 packages never changes the host's
dpkg architectures or its package lists. Packages land in ~/.cache/xtalk/debs (the
file names carry the architecture) and are unpacked with `dpkg-deb -x`.
"""
from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from ..errors import InfrastructureError

CACHE = Path(os.environ.get("XTALK_CACHE", Path.home() / ".cache" / "xtalk"))
DEB_DIR = CACHE / "debs"
LISTS_MAX_AGE_S = 7 * 24 * 3600


class Apt:
    """apt-get/apt-cache for one architecture with a private state directory."""

    def __init__(self, arch: str):
        self.arch = arch  # Debian name: amd64, arm64
        self.state = CACHE / "apt" / arch

    def _opts(self) -> list[str]:
        s = self.state
        return ["-o", f"Dir::State={s}", "-o", f"Dir::State::Lists={s}/lists",
                "-o", f"Dir::State::status={s}/status", "-o", f"Dir::Cache={s}/cache",
                "-o", f"APT::Architecture={self.arch}", "-o", f"APT::Architectures::={self.arch}",
                "-o", "Debug::NoLocking=1"]

    def _run(self, tool: str, args: list[str], cwd: Path | None = None) -> str:
        proc = subprocess.run([tool, "-q", *self._opts(), *args], capture_output=True, text=True, cwd=cwd)
        if proc.returncode != 0:
            tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-8:])
            raise InfrastructureError(f"{tool} {' '.join(args[:3])} ({self.arch}) failed:\n{tail}")
        return proc.stdout

    def update(self, force: bool = False) -> None:
        lists = self.state / "lists"
        stamp = self.state / "updated"
        if not force and stamp.exists() and time.time() - stamp.stat().st_mtime < LISTS_MAX_AGE_S:
            return
        (lists / "partial").mkdir(parents=True, exist_ok=True)
        (self.state / "cache" / "archives" / "partial").mkdir(parents=True, exist_ok=True)
        (self.state / "status").touch()
        self._run("apt-get", ["update"])
        stamp.touch()

    def candidates(self, names: list[str]) -> dict[str, str]:
        """name -> candidate version (the one `apt-get download` would fetch)."""
        out = self._run("apt-cache", ["policy", *names])
        versions, current = {}, None
        for line in out.splitlines():
            if line and not line.startswith(" "):
                current = line.rstrip(":").split(":")[0]
            elif current and line.strip().startswith("Candidate:"):
                versions[current] = line.split(":", 1)[1].strip()
        missing = [n for n in names if versions.get(n) in (None, "(none)")]
        if missing:
            raise InfrastructureError(f"no {self.arch} package named {', '.join(missing)} in the apt sources")
        return versions

    def depends(self, name: str) -> list[str]:
        out = self._run("apt-cache", ["depends", "--no-recommends", "--no-suggests", "--no-conflicts",
                                      "--no-breaks", "--no-replaces", "--no-enhances", name])
        return [line.split(":", 1)[1].strip().strip("<>") for line in out.splitlines()
                if line.strip().startswith(("Depends:", "|Depends:"))]

    def closure(self, seeds: list[str], skip: set[str]) -> list[str]:
        """seeds and everything they depend on (first alternative of each), minus skip
        (packages a busybox dom0 does without: python3, udev, init helpers...)."""
        seen: set[str] = set()
        level = [s for s in seeds if s not in skip]
        while level:
            seen.update(level)
            out = self._run("apt-cache", ["depends", "--no-recommends", "--no-suggests", "--no-conflicts",
                                          "--no-breaks", "--no-replaces", "--no-enhances", *level])
            nxt, alt = [], False
            for line in out.splitlines():
                stripped = line.strip()
                if stripped.startswith(("Depends:", "|Depends:", "PreDepends:", "|PreDepends:")):
                    name = stripped.split(":", 1)[1].strip().strip("<>").split(":")[0]
                    if not alt and name not in seen and name not in skip and name not in nxt:
                        nxt.append(name)
                    alt = stripped.startswith("|")
                else:
                    alt = False
            level = nxt
        return sorted(seen)

    def download(self, versions: dict[str, str]) -> list[Path]:
        """Fetch name=version into DEB_DIR (skipping files already there); their paths."""
        DEB_DIR.mkdir(parents=True, exist_ok=True)
        paths, todo = [], []
        for name, version in sorted(versions.items()):
            path = DEB_DIR / f"{name}_{version.replace(':', '%3a')}_{self._deb_arch(name)}.deb"
            alt = DEB_DIR / f"{name}_{version.replace(':', '%3a')}_all.deb"
            if path.exists():
                paths.append(path)
            elif alt.exists():
                paths.append(alt)
            else:
                todo.append(f"{name}={version}")
        if todo:
            self._run("apt-get", ["download", *todo], cwd=DEB_DIR)
            for spec in todo:
                name, version = spec.split("=", 1)
                found = sorted(DEB_DIR.glob(f"{name}_{version.replace(':', '%3a')}_*.deb"))
                found = [p for p in found if p.name.endswith((f"_{self.arch}.deb", "_all.deb"))]
                if not found:
                    raise InfrastructureError(f"apt-get download {spec} ({self.arch}) left no .deb in {DEB_DIR}")
                paths.append(found[0])
        return paths

    def _deb_arch(self, name: str) -> str:
        return self.arch


def extract(debs: list[Path], root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for deb in debs:
        proc = subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], capture_output=True, text=True)
        if proc.returncode != 0:
            raise InfrastructureError(f"dpkg-deb -x {deb.name} failed: {proc.stderr.strip()}")
