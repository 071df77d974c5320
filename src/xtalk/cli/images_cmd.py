"""`xtalk images build NAME [--arch A]`: build a guest image from distribution packages
(today: linux-rt, Debian's PREEMPT_RT kernel + an initramfs; docs/linux-rt.md), or
reuse the cached build with the same content hash. `xtalk images list` shows the cache.
"""
from __future__ import annotations

import json

from ..host.arches import host_arch
from ..images import RECIPES
from ..cache import cache_dir
from .common import add_arch, add_command, add_json
from .common import console as make_console


ORDER = 130  # its place in `xtalk --help`


def add_parser(sub) -> None:
    p = add_command(sub, "images", "build guest images from distribution packages (linux-rt)", [
        "xtalk images build linux-rt", "xtalk images list"])
    inner = p.add_subparsers(dest="images_command", required=True, metavar="ACTION")
    b = add_command(inner, "build", "build an image, or reuse the cached one with the same inputs", [
        "xtalk images build linux-rt", "xtalk images build linux-rt --arch arm64 --refresh"])
    b.add_argument("name", choices=RECIPES, help=f"the image to build: {', '.join(RECIPES)}")
    add_arch(b, host_arch() or "x86_64", "this host's")
    b.add_argument("--refresh", action="store_true", help="apt-get update the private package lists first")
    b.add_argument("--force", action="store_true", help="rebuild even when a cached build has the same hash")
    add_json(b, "the build")
    b.set_defaults(handler=build_image)
    ls = add_command(inner, "list", "list the cached image builds", ["xtalk images list"])
    ls.set_defaults(handler=list_images)


def build_image(args) -> int:
    from ..images import linux_rt

    console = make_console(markup=False)
    log = (lambda msg: None) if args.json else console.print
    image = linux_rt.build(args.arch, refresh=args.refresh, force=args.force, log=log)
    if args.json:
        print(json.dumps({"name": image.name, "arch": image.arch, "hash": image.hash, "cached": image.cached,
                          "seconds": round(image.seconds, 2), "dir": str(image.dir), "kernel": str(image.kernel),
                          "initrd": str(image.initrd), "kernel_package": image.manifest["inputs"]["kernel"]}))
        return 0
    what = "cached" if image.cached else "built"
    sizes = image.manifest["sizes"]
    kernel = image.manifest["inputs"]["kernel"]
    console.print(f"{image.name} {image.arch}: {what} {image.hash} in {image.seconds:.1f} s")
    console.print(f"  kernel  {image.kernel} ({kernel['package']} {kernel['version']}, "
                  f"{sizes['kernel'] / 2**20:.1f} MiB)")
    console.print(f"  initrd  {image.initrd} ({len(image.manifest['inputs']['packages'])} packages, "
                  f"{sizes['initrd'] / 2**20:.1f} MiB)")
    return 0


def list_images(args) -> int:
    console = make_console(markup=False)
    root = cache_dir() / "images"
    for manifest in sorted(root.glob("*/manifest.json")) if root.is_dir() else []:
        m = json.loads(manifest.read_text())
        console.print(f"{m['name']:10s} {m['arch']:8s} {m['hash'][:16]}  {m['built_at']}  {manifest.parent}",
                      highlight=False)
    return 0
