"""Debian packages for image builds, through apt with a private state directory per
architecture, so nothing host-wide changes (no `dpkg --add-architecture`, no host
package lists touched; works without root).

Used by the image builds (linux_rt.py) and the Xen lab (xtalk.lab.recipe).
Layout under <cache>/apt-<arch>/: sources copied from the host's /etc/apt (sources.list
and sources.list.d/*.list|*.sources), lists/, an empty dpkg status. Debs are downloaded
with `apt-get download` into <cache>/debs/<arch>/ and either unpacked once each with
`dpkg-deb -x` into <cache>/debs/<arch>/x/<deb name>/ (fetch) or together into a
caller's root (extract). The lists are refreshed (`apt-get update`) when
missing, older than XTALK_APT_MAX_AGE_DAYS (default 7), or on request.
The architecture is given in any spelling host/arches.py knows (it gives Debian's name, the
<arch> above). With arch "source" the same private apt (<cache>/apt-source/) reads the
host's sources as deb-src and fetches source packages (source_versions, fetch_source)
into <cache>/sources/.
One process at a time uses an architecture's private apt and builds from it (`exclusive`):
two image builds at once would refresh its lists and unpack into one directory together.
Caveat: the host's sources must serve the architecture (Debian's mirrors serve arm64;
an Ubuntu host would need ports.ubuntu.com for arm64).
"""
from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
import tarfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..host.arches import ALIASES, facts
from ..errors import InfrastructureError

SOURCE = "source"  # the pseudo-architecture of source packages


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    arch: str
    filename: str       # pool path in the archive
    sha256: str
    depends: tuple[str, ...]   # first alternative of each Depends / Pre-Depends

    @property
    def deb_name(self) -> str:
        """The file name `apt-get download` gives it (epoch colon as %3a)."""
        return f"{self.name}_{self.version.replace(':', '%3a')}_{self.arch}.deb"


def _parse_depends(text: str) -> tuple[str, ...]:
    out = []
    for group in text.split(","):
        first = group.split("|")[0].strip()
        if first:
            out.append(first.split()[0].split(":")[0])
    return tuple(out)


@contextmanager
def exclusive(arch: str, cache: Path, log=print) -> Iterator[None]:
    """Hold arch's private apt (and the builds from it) for this process, across processes;
    a second builder waits, and says so."""
    known = facts(arch)
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / f"apt-{known.deb if known else SOURCE}.lock", "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log(f"waiting for another xtalk building from the {arch} packages in {cache}")
            fcntl.flock(lock, fcntl.LOCK_EX)
        yield


class PrivateApt:
    def __init__(self, arch: str, cache: Path, log=print):
        known = facts(arch)
        if known is None and arch != SOURCE:
            raise InfrastructureError(f"no Debian architecture for {arch!r} (known: {', '.join([*ALIASES, SOURCE])})")
        self.arch, self.deb_arch, self.log = arch, known.deb if known else SOURCE, log
        self.root = cache / f"apt-{self.deb_arch}"
        self.debs = cache / ("sources" if arch == SOURCE else f"debs/{self.deb_arch}")
        for d in (self.root / "lists" / "partial", self.root / "archives" / "partial",
                  self.root / "sources.list.d", self.root / "preferences.d", self.debs / "x"):
            d.mkdir(parents=True, exist_ok=True)
        if not (self.root / "status").exists():
            (self.root / "status").touch()
        self._copy_sources()

    def _copy_sources(self) -> None:
        """The host's sources, rewritten only when they changed (apt's binary cache
        pkgcache.bin stays valid only while its inputs keep their mtimes)."""
        etc = Path("/etc/apt")
        want = {"sources.list": (etc / "sources.list").read_bytes() if (etc / "sources.list").is_file() else b""}
        for src in sorted((etc / "sources.list.d").glob("*")):
            if src.suffix in (".list", ".sources"):
                want[f"sources.list.d/{src.name}"] = src.read_bytes()
        if self.arch == SOURCE:  # the same archives, their source indexes
            want = {rel: as_deb_src(data) for rel, data in want.items()}
        have = {"sources.list": self.root / "sources.list",
                **{f"sources.list.d/{p.name}": p for p in (self.root / "sources.list.d").iterdir()}}
        for rel, path in have.items():
            if rel not in want:
                path.unlink()
        for rel, data in want.items():
            path = self.root / rel
            if not path.is_file() or path.read_bytes() != data:
                path.write_bytes(data)

    def options(self) -> list[str]:
        r = self.root
        opts = {"Dir::State": r, "Dir::State::Lists": r / "lists", "Dir::State::status": r / "status",
                "Dir::Cache": r, "Dir::Cache::archives": r / "archives",
                # a binary cache of the lists (hosts such as Debian's docker images turn it off)
                "Dir::Cache::pkgcache": r / "pkgcache.bin", "Dir::Cache::srcpkgcache": r / "srcpkgcache.bin",
                "Dir::Etc::SourceList": r / "sources.list", "Dir::Etc::SourceParts": r / "sources.list.d",
                "Dir::Etc::PreferencesParts": r / "preferences.d", "Dir::Etc::Preferences": r / "preferences",
                "APT::Architecture": self.deb_arch, "APT::Architectures": self.deb_arch,
                "Debug::NoLocking": "1", "Acquire::Languages": "none"}
        if os.geteuid() == 0:
            opts["APT::Sandbox::User"] = "root"
        return [x for k, v in opts.items() for x in ("-o", f"{k}={v}")]

    def _run(self, tool: str, *args: str, cwd: Path | None = None) -> str:
        proc = subprocess.run([tool, *self.options(), *args], capture_output=True, text=True, cwd=cwd)
        if proc.returncode != 0:
            tail = " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-6:])
            raise InfrastructureError(f"{tool} {' '.join(args[:3])} failed: {tail}")
        return proc.stdout

    def lists_age_s(self) -> float | None:
        lists = [p for p in (self.root / "lists").glob("*_Packages*")] + list((self.root / "lists").glob("*_Sources*"))
        return time.time() - max(p.stat().st_mtime for p in lists) if lists else None

    def update(self, force: bool = False) -> bool:
        """apt-get update when needed; True when it ran."""
        age = self.lists_age_s()
        max_age = float(os.environ.get("XTALK_APT_MAX_AGE_DAYS", "7")) * 86400
        if not force and age is not None and age < max_age:
            return False
        if not shutil.which("apt-get"):
            raise InfrastructureError("apt-get not found: image builds need a Debian or Ubuntu host")
        self.log(f"apt: updating the package lists for {self.deb_arch} in {self.root}")
        self._run("apt-get", "-q", "update")
        return True

    def show(self, names: list[str]) -> dict[str, Package]:
        """Candidate version records of packages (virtual or missing ones are absent)."""
        out: dict[str, Package] = {}
        if not names:
            return out
        proc = subprocess.run(["apt-cache", *self.options(), "show", "--no-all-versions", *names],
                              capture_output=True, text=True)
        for record in proc.stdout.split("\n\n"):
            fields, key = {}, None
            for line in record.splitlines():
                if line.startswith(" ") and key:
                    fields[key] += " " + line.strip()
                elif ":" in line:
                    key, _, value = line.partition(":")
                    fields[key] = value.strip()
            if "Package" in fields and "Filename" in fields:
                deps = _parse_depends(fields.get("Pre-Depends", "")) + _parse_depends(fields.get("Depends", ""))
                out[fields["Package"]] = Package(fields["Package"], fields["Version"], fields["Architecture"],
                                                 fields["Filename"], fields.get("SHA256", ""), deps)
        return out

    def require(self, names: list[str]) -> dict[str, Package]:
        """show(), failing for any name without a candidate."""
        found = self.show(names)
        missing = sorted(set(names) - set(found))
        if missing:
            raise InfrastructureError(f"no {self.deb_arch} package named {', '.join(missing)} in the apt sources")
        return found

    def closure(self, seeds: list[str], skip: set[str]) -> dict[str, Package]:
        """seeds and everything they depend on (first alternative of each), minus skip."""
        seen: dict[str, Package] = {}
        level = sorted(set(seeds) - skip)
        while level:
            found = self.require(level)
            seen.update(found)
            level = sorted({d for p in found.values() for d in p.depends} - set(seen) - skip)
        return seen

    def kernel(self, meta_name: str) -> Package:
        """The linux-image-<version> package a kernel metapackage (linux-image-amd64...) names."""
        meta = self.require([meta_name])[meta_name]
        real = next((d for d in meta.depends if d.startswith("linux-image-")), None)
        if real is None:
            raise InfrastructureError(f"{meta_name} ({self.deb_arch}) names no linux-image- package")
        return self.require([real])[real]

    def download(self, pkgs: list[Package]) -> list[Path]:
        """The debs of pkgs, downloaded unless already cached."""
        missing = [p for p in pkgs if not (self.debs / p.deb_name).is_file()]
        if missing:
            self.log(f"apt: downloading {len(missing)} package(s): {' '.join(p.name for p in missing)}")
            self._run("apt-get", "-q", "download", *[f"{p.name}={p.version}" for p in missing], cwd=self.debs)
        debs = [self.debs / p.deb_name for p in pkgs]
        for deb in debs:
            if not deb.is_file():
                raise InfrastructureError(f"apt-get download did not produce {deb.name}")
        return debs

    def fetch(self, pkgs: list[Package]) -> dict[str, Path]:
        """Download (unless already cached) and unpack; returns name -> unpacked dir."""
        out = {}
        for p, deb in zip(pkgs, self.download(pkgs)):
            dest = self.debs / "x" / deb.stem
            if not (dest / ".done").is_file():
                shutil.rmtree(dest, ignore_errors=True)
                _unpack(deb, dest)
                (dest / ".done").touch()
            out[p.name] = dest
        return out

    def extract(self, pkgs: list[Package], root: Path) -> None:
        """Download (unless already cached) and unpack all of pkgs into one root."""
        root.mkdir(parents=True, exist_ok=True)
        for deb in self.download(pkgs):
            _unpack(deb, root)

    def extract_member(self, pkg: Package, prefix: str, dest: Path) -> Path:
        """One file (the first whose path starts with prefix) from a deb, without unpacking
        the rest (the kernel package is ~70 MB of modules we do not need)."""
        (deb,) = self.download([pkg])
        proc = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE)
        try:
            with tarfile.open(fileobj=proc.stdout, mode="r|") as tar:   # streamed: stops at the file
                for member in tar:
                    if member.name.lstrip("./").startswith(prefix) and member.isfile():
                        dest.write_bytes(tar.extractfile(member).read())
                        return dest
        finally:
            proc.kill()
            proc.wait()
        raise InfrastructureError(f"{deb.name} has no file {prefix}*")


    def source_versions(self, name: str) -> list[str]:
        """Versions of a source package the deb-src indexes list, newest first."""
        text = self._run("apt-cache", "showsrc", "--only-source", name)
        versions = sorted(set(re.findall(r"(?m)^Version: (\S+)$", text)), key=_version_key, reverse=True)
        if not versions:
            raise InfrastructureError(f"no source package {name} in the apt sources")
        return versions

    def fetch_source(self, name: str, version: str) -> Path:
        """The unpacked source tree (Debian patches applied) of name=version, cached."""
        dest = self.debs / f"{name}-{version.replace(':', '_')}"
        if (dest / ".done").is_file():
            return dest / "tree"
        shutil.rmtree(dest, ignore_errors=True)
        dest.mkdir(parents=True)
        self.log(f"apt: downloading the source of {name} {version}")
        self._run("apt-get", "-q", "source", "--download-only", f"{name}={version}", cwd=dest)
        (dsc,) = dest.glob("*.dsc")
        proc = subprocess.run(["dpkg-source", "--no-check", "-x", dsc.name, "tree"], cwd=dest,
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise InfrastructureError(f"dpkg-source -x {dsc.name} failed: {proc.stderr.strip()[-400:]}")
        (dest / ".done").touch()
        return dest / "tree"


def as_deb_src(sources: bytes) -> bytes:
    """An apt sources file (one-line .list or deb822 .sources) with deb entries as deb-src."""
    return re.sub(rb"(?m)^(Types:[ \t]*)deb[ \t]*$|^deb([ \t])", rb"\1deb-src\2", sources)


def _version_key(version: str) -> list:
    """A sort key close enough to Debian's version order for picking the newest."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", version)]


def _unpack(deb: Path, dest: Path) -> None:
    proc = subprocess.run(["dpkg-deb", "-x", str(deb), str(dest)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise InfrastructureError(f"dpkg-deb -x {deb.name} failed: {proc.stderr.strip()}")
