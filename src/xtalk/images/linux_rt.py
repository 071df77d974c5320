"""The `linux-rt` image: Debian's PREEMPT_RT kernel plus an initramfs assembled from
Debian packages (busybox-static, rt-tests, stress-ng and exactly the shared libraries
their programs load), xtalk's static xtalk-rt and the recipe's init
(images/linux-rt/). docs/linux-rt.md describes it.

Build: private apt (apt.py) -> candidate versions -> download + unpack (cached) ->
ELF closure of the recipe's programs (DT_NEEDED, interpreter, extra_libs), resolved
through the packages' Depends one level at a time -> content hash of every input ->
if <cache>/images/linux-rt-<arch>-<hash>/ exists: cached; else extract vmlinuz, write
the initramfs (reproducible cpio) and manifest.json there.
"""
from __future__ import annotations

import hashlib
import json
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from . import artifacts
from ..host.arches import ARCHES, FACTS
from ..errors import InfrastructureError
from ..cache import cache_dir
from . import cpio, elf, prune
from .apt import Package, PrivateApt, exclusive
from ..results.run_record import Part

NAME = "linux-rt"
MAX_DEPTH = 4
KEEP_BUILDS = 3  # per arch: older builds are removed from the cache after a new one
MIN_MEMORY_MIB = 256  # RAM a Linux-RT guest needs (kernel + the uncompressed initramfs)
KERNEL_PARAMS = ("quiet", "panic=-1", "noirqdebug")
# the build's code, hashed into the image's: relative to this directory (host/arches.py: the
# triplet, ELF machine and Debian name of the architecture)
BUILDER_FILES = ("linux_rt.py", "apt.py", "cpio.py", "elf.py", "../host/arches.py")


class ImageKernel(Part):
    package: str
    version: str
    sha256: str


class LinuxRtImageFacts(Part):
    """What a run's backend metadata says of a Linux-RT guest image (Image.metadata())."""

    image_hash: str | None = None
    initrd: str | None = None
    image_cached: bool | None = None
    image_kernel: ImageKernel | None = None
    image_packages: dict[str, str] | None = None


@dataclass(frozen=True)
class Image:
    name: str
    arch: str
    hash: str
    dir: Path
    kernel: Path
    initrd: Path
    cached: bool
    seconds: float
    manifest: dict = field(repr=False)

    def metadata(self) -> dict:
        """What a run's metadata says of the guest image."""
        return {"image_hash": self.hash, "initrd": str(self.initrd), "image_cached": self.cached,
                "image_kernel": self.manifest["inputs"]["kernel"],
                "image_packages": {n: p["version"] for n, p in self.manifest["inputs"]["packages"].items()}}


def guest_cmdline(console: str, args: list[str], kernel_extra: tuple[str, ...] = ()) -> str:
    """The kernel command line of a Linux-RT guest: console, kernel parameters, then the
    workload's key=value tokens as xtalk.KEY=VALUE (read by images/linux-rt/init)."""
    return " ".join([f"console={console}", *KERNEL_PARAMS, *kernel_extra, *(f"xtalk.{a}" for a in args)])


def recipe_dir() -> Path:
    return artifacts.source_root() / "images" / NAME


class _Tree:
    """The initramfs being assembled: image path -> (kind, payload, mode)."""

    def __init__(self):
        self.entries: dict[str, tuple[str, object, int]] = {}

    def add(self, path: str, kind: str, payload: object = b"", mode: int = 0o755) -> None:
        p = PurePosixPath(path)
        for parent in list(p.parents)[:-1]:
            self.entries.setdefault(str(parent), ("dir", b"", 0o755))
        self.entries[str(p)] = (kind, payload, mode)

    def as_list(self) -> list[tuple[str, str, object, int]]:
        out = []
        for path, (kind, payload, mode) in self.entries.items():
            if kind == "src":  # a file on disk, read when the archive is written
                kind, payload = "file", Path(payload).read_bytes()
            out.append((path, kind, payload, mode))
        return out


class _Closure:
    """Files of the recipe's programs and every library they need, found in the
    unpacked packages."""

    def __init__(self, arch: str, dirs: dict[str, Path]):
        self.arch, self.dirs = arch, dirs
        t = FACTS[arch].triplet
        self.libdirs = [f"lib/{t}", f"usr/lib/{t}", "lib", "usr/lib", "lib64", "usr/lib64"]

    def locate(self, image_path: str) -> tuple[str, Path] | None:
        rel = image_path.lstrip("/")
        for name, d in self.dirs.items():
            if (d / rel).is_symlink() or (d / rel).exists():
                return name, d / rel
        return None

    def find_lib(self, soname: str) -> str | None:
        for libdir in self.libdirs:
            if self.locate(f"/{libdir}/{soname}"):
                return f"/{libdir}/{soname}"
        return None

    def walk(self, files: list[str], extra_libs: list[str]) -> tuple[dict, set[str], dict[str, str]]:
        """(image path -> ('src', path) | ('link', target), unresolved sonames, path -> package)."""
        out: dict[str, tuple[str, object]] = {}
        owner: dict[str, str] = {}
        unresolved: set[str] = set()
        todo = list(files) + [lib for lib in (self.find_lib(s) for s in extra_libs) if lib]
        unresolved |= {s for s in extra_libs if not self.find_lib(s)}
        while todo:
            path = todo.pop()
            if path in out:
                continue
            found = self.locate(path)
            if not found:
                if path in files:
                    raise InfrastructureError(f"{NAME}: no package of the recipe has {path}")
                unresolved.add(PurePosixPath(path).name)
                continue
            pkg, src = found
            owner[path] = pkg
            if src.is_symlink():
                target = src.readlink()
                out[path] = ("link", str(target))
                todo.append(str(PurePosixPath(path).parent / target) if not target.is_absolute() else str(target))
                continue
            out[path] = ("src", src)
            if not elf.is_elf(src):
                continue
            d = elf.deps(src)
            if d.machine != FACTS[self.arch].elf_machine:
                raise InfrastructureError(f"{NAME}: {path} from {pkg} is not an {self.arch} program")
            if d.interp:
                todo.append(d.interp)
            for soname in d.needed:
                lib = self.find_lib(soname)
                if lib:
                    todo.append(lib)
                else:
                    unresolved.add(soname)
        return out, unresolved, owner


def _provides(d: Path, sonames: set[str], arch: str) -> bool:
    t = FACTS[arch].triplet
    return any((d / libdir / s).exists() or (d / libdir / s).is_symlink()
               for s in sonames for libdir in (f"lib/{t}", f"usr/lib/{t}", "lib", "usr/lib", "lib64"))


def resolve(apt: PrivateApt, recipe: dict, arch: str) -> tuple[dict[str, Package], dict, dict[str, str]]:
    """The packages the initramfs takes files from and the files themselves."""
    ini = recipe["initramfs"]
    roots = apt.show(list(ini["packages"]))
    missing = sorted(set(ini["packages"]) - set(roots))
    if missing:
        raise InfrastructureError(f"{NAME}: packages not found for {apt.deb_arch}: {', '.join(missing)}")
    pkgs = dict(roots)
    dirs = apt.fetch(list(pkgs.values()))
    expanded: set[str] = set()
    searched: dict[str, Package] = {}
    for _ in range(MAX_DEPTH * 4):
        files, unresolved, owner = _Closure(arch, dirs).walk(list(ini["files"]), list(ini.get("extra_libs", [])))
        if not unresolved:
            return {n: p for n, p in pkgs.items() if n in set(owner.values())}, files, owner
        known = set(pkgs) | set(searched)
        # Depends of the packages we take files from first; of the others only if needed
        for group in (pkgs, searched):
            frontier = {dep for name, p in group.items() if name not in expanded for dep in p.depends} - known
            expanded |= set(group)
            if frontier:
                break
        if not frontier:
            break
        cands = apt.show(sorted(frontier))
        cand_dirs = apt.fetch(list(cands.values()))
        for name, p in cands.items():
            if _provides(cand_dirs[name], unresolved, arch):
                pkgs[name], dirs[name] = p, cand_dirs[name]
            else:
                searched[name] = p
    raise InfrastructureError(f"{NAME}: no package provides {', '.join(sorted(unresolved))} "
                              f"(searched the Depends of {', '.join(sorted(pkgs))})")


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def kernel_package(apt: PrivateApt, recipe: dict, arch: str) -> Package:
    return apt.kernel(recipe["kernel"][arch])


def extract_vmlinux(vmlinuz: Path) -> bytes | None:
    """The ELF kernel inside an x86 bzImage (xz or gzip payload), or None. QEMU boots it
    through its PVH entry note: no firmware decompression of the kernel, which under TCG
    takes ~3 s of the ~6 s boot (measured: BEGIN after 2.8 s instead of 5.8 s)."""
    import gzip
    import lzma
    data = vmlinuz.read_bytes()
    for magic, decompress in ((b"\xfd7zXZ\x00", lambda b: lzma.LZMADecompressor(lzma.FORMAT_XZ).decompress(b)),
                              (b"\x1f\x8b\x08", lambda b: gzip.GzipFile(fileobj=__import__("io").BytesIO(b)).read())):
        at = data.find(magic)
        if at < 0:
            continue
        try:
            out = decompress(data[at:])
        except (lzma.LZMAError, OSError, EOFError):
            continue
        if out[:4] == b"\x7fELF":
            return out
    return None


def build(arch: str = "x86_64", refresh: bool = False, force: bool = False, log=print) -> Image:
    """Build (or find in the cache) the linux-rt image for arch; one builder at a time."""
    if arch not in FACTS:
        raise InfrastructureError(f"{NAME}: unsupported arch {arch!r} ({', '.join(ARCHES)})")
    with exclusive(arch, cache_dir(), log):
        return _build(arch, refresh, force, log)


def _build(arch: str, refresh: bool, force: bool, log) -> Image:
    start = time.monotonic()
    rdir = recipe_dir()
    recipe = tomllib.loads((rdir / "recipe.toml").read_text())
    program = artifacts.build(f"posix-{arch}", f"build/posix/{arch}/xtalk-rt")
    apt = PrivateApt(arch, cache_dir(), log)
    apt.update(force=refresh)
    kpkg = kernel_package(apt, recipe, arch)
    pkgs, files, owner = resolve(apt, recipe, arch)

    here = Path(__file__).parent
    inputs = {
        "image": NAME, "arch": arch,
        "kernel": {"package": kpkg.name, "version": kpkg.version, "sha256": kpkg.sha256},
        "packages": {n: {"version": p.version, "sha256": p.sha256} for n, p in sorted(pkgs.items())},
        "recipe": {f.name: _sha256(f) for f in sorted(rdir.iterdir()) if f.is_file()},
        "programs": {"xtalk-rt": _sha256(program)},
        "builder": {f: _sha256(here / f) for f in BUILDER_FILES},
    }
    digest = hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()
    out = cache_dir() / "images" / f"{NAME}-{arch}-{digest[:16]}"
    manifest_path = out / "manifest.json"
    if manifest_path.is_file() and not force:
        manifest = json.loads(manifest_path.read_text())
        return Image(NAME, arch, digest, out, out / manifest["kernel"], out / manifest["initrd"], True,
                     time.monotonic() - start, manifest)

    out.mkdir(parents=True, exist_ok=True)
    log(f"{NAME}: building {arch} image {digest[:16]} ({len(pkgs)} packages + {kpkg.name} {kpkg.version})")
    apt.extract_member(kpkg, "boot/vmlinuz-", out / "vmlinuz")
    kernel = out / "vmlinuz"
    if arch == "x86_64" and (elf_kernel := extract_vmlinux(kernel)) is not None:
        kernel = out / "vmlinux"
        kernel.write_bytes(elf_kernel)
    tree = _Tree()
    for d in ("/proc", "/sys", "/dev", "/tmp", "/run", "/root", "/etc", "/usr/sbin", "/sbin"):
        tree.add(d, "dir")
    tree.add("/dev/console", "chr", (5, 1), 0o600)
    tree.add("/dev/null", "chr", (1, 3), 0o666)
    tree.add("/etc/passwd", "file", b"root:x:0:0:root:/root:/bin/sh\n", 0o644)
    tree.add("/etc/group", "file", b"root:x:0:\n", 0o644)
    tree.add("/init", "src", rdir / "init", 0o755)
    tree.add("/bin/xtalk-rt", "src", program, 0o755)
    for path, (kind, payload) in sorted(files.items()):
        mode = 0o777 if kind == "link" else (Path(payload).stat().st_mode & 0o777)
        tree.add(path, kind, payload, mode)
    compress = recipe["initramfs"].get("compress", "gzip")
    initrd = out / ("initramfs.cpio.gz" if compress == "gzip" else "initramfs.cpio")
    cpio.write(initrd, tree.as_list(), compress)
    manifest = {"name": NAME, "arch": arch, "hash": digest, "inputs": inputs, "initrd": initrd.name,
                "kernel": kernel.name,
                "files": {p: owner.get(p, "xtalk") for p in sorted(files)},
                "sizes": {"vmlinuz": (out / "vmlinuz").stat().st_size, "kernel": kernel.stat().st_size,
                          "initrd": initrd.stat().st_size},
                "build_s": round(time.monotonic() - start, 2), "built_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    tmp = out / "manifest.json.tmp"
    tmp.write_text(json.dumps(manifest, indent=2, sort_keys=True))
    tmp.replace(manifest_path)  # written last: its presence marks a complete build
    prune(cache_dir() / "images", f"{NAME}-{arch}-*", out, KEEP_BUILDS)
    return Image(NAME, arch, digest, out, kernel, initrd, False, time.monotonic() - start, manifest)
