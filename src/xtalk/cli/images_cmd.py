"""`xtalk images build NAME [--arch A]`: build a guest image from distribution packages
(today: linux-rt, Debian's PREEMPT_RT kernel + an initramfs; docs/linux-rt.md), or
reuse the cached build with the same content hash. `xtalk images list` shows the cache.
"""
from __future__ import annotations

import json

from ..arches import ARCHES, host_arch, normalise
from ..images import RECIPES, cache_dir
from .common import console as make_console


def add_parser(sub) -> None:
    p = sub.add_parser("images", help="build guest images from distribution packages (linux-rt)")
    inner = p.add_subparsers(dest="images_command", required=True, metavar="ACTION")
    b = inner.add_parser("build", help="build an image, or reuse the cached one with the same inputs")
    b.add_argument("name", choices=RECIPES)
    b.add_argument("--arch", type=lambda a: normalise(a) or a, choices=ARCHES, default=host_arch() or "x86_64",
                   help="x86_64 or arm64 (aarch64: the same)")
    b.add_argument("--refresh", action="store_true", help="apt-get update the private package lists first")
    b.add_argument("--force", action="store_true", help="rebuild even when a cached build has the same hash")
    b.add_argument("--json", action="store_true", help="machine-readable output")
    b.set_defaults(handler=build_image)
    ls = inner.add_parser("list", help="cached image builds")
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
