"""`xtalk lab`: the Xen lab, Xen + dom0 booted under QEMU for tests and trying xtalk
without a board. `xtalk lab start xen --arch arm64` builds it (cached by content hash)
and boots it in the background; campaigns with backend.executor = "lab" use it;
`xtalk lab stop` ends it."""
from __future__ import annotations

import sys

from ..arches import ARCHES, normalise

LAB_ARCHES = sorted(ARCHES)  # arm64 first: the default, and the order stop and status go through


def _add_arch(parser, default: str | None = "arm64") -> None:
    # the other spellings arches.py knows (aarch64, amd64) name the same lab
    parser.add_argument("--arch", default=default, choices=LAB_ARCHES, type=lambda text: normalise(text) or text)


def add_parser(sub) -> None:
    p = sub.add_parser("lab", help="start/stop the Xen lab (Xen + dom0 under QEMU)")
    inner = p.add_subparsers(dest="lab_command", required=True, metavar="ACTION")
    start = inner.add_parser("start", help="build if needed, boot, wait until dom0 answers over ssh")
    start.add_argument("kind", choices=["xen"], help="what to boot (xen)")
    _add_arch(start)
    start.add_argument("--cpus", type=int, default=None, help="pCPUs of the lab (default 3; dom0 gets pCPU 0)")
    start.add_argument("--memory-mib", type=int, default=None, help="RAM of the lab (default 3072)")
    start.add_argument("--xen", default="debian", choices=["debian", "all-schedulers"],
                       help="Debian's Xen (credit, credit2) or one built from Debian's source with RTDS, "
                            "null and ARINC653 too (arm64; minutes to build the first time)")
    start.set_defaults(handler=do_start)
    build = inner.add_parser("build", help="build the lab's boot files only")
    build.add_argument("kind", choices=["xen"])
    _add_arch(build)
    build.add_argument("--xen", default="debian", choices=["debian", "all-schedulers"])
    build.set_defaults(handler=do_build)
    stop = inner.add_parser("stop", help="stop the lab (both arches unless --arch)")
    stop.add_argument("kind", nargs="?", choices=["xen"], default="xen")
    _add_arch(stop, default=None)
    stop.set_defaults(handler=do_stop)
    status = inner.add_parser("status", help="which labs run, their ports and boot times")
    status.set_defaults(handler=do_status)
    run = inner.add_parser("exec", help="run a command in the lab's dom0, e.g. xtalk lab exec -- xl list")
    _add_arch(run)
    run.add_argument("argv", nargs="+", help="the command and its arguments")
    run.set_defaults(handler=do_exec)


def _log(msg: str) -> None:
    print(f"xtalk: {msg}", file=sys.stderr)


def do_start(args) -> int:
    from ..lab import vm
    lab = vm.start(args.arch, cpus=args.cpus, memory_mib=args.memory_mib, log=_log, xen=args.xen)
    print(f"{lab.arch}: pid {lab.state['pid']}, ssh 127.0.0.1:{lab.state['ssh_port']}, "
          f"serial log {lab.dir / 'serial.log'}")
    return 0


def do_build(args) -> int:
    from ..lab.recipe import build
    img = build(args.arch, log=_log, xen=args.xen)
    print(img.dir)
    return 0


def do_stop(args) -> int:
    from ..lab import vm
    arches = [args.arch] if args.arch else LAB_ARCHES
    if not any([vm.stop(a, log=_log) for a in arches]):
        _log("no Xen lab was running")
    return 0


def do_status(args) -> int:
    from ..lab import vm
    found = False
    for arch in LAB_ARCHES:
        lab = vm.current(arch)
        if lab:
            found = True
            s = lab.state
            print(f"{arch}: running, Xen {lab.image.info.get('xen_flavour', 'debian')}, pid {s['pid']}, "
                  f"ssh 127.0.0.1:{s['ssh_port']}, {s['cpus']} pCPUs, booted in {s.get('boot_s')} s, "
                  f"image {s['image_dir']}")
        else:
            print(f"{arch}: not running")
    return 0 if found else 1


def do_exec(args) -> int:
    from ..errors import InfrastructureError
    from ..lab import vm
    lab = vm.current(args.arch)
    if lab is None:
        raise InfrastructureError(f"no {args.arch} Xen lab is running (xtalk lab start xen --arch {args.arch})")
    argv = args.argv[1:] if args.argv[:1] == ["--"] else args.argv
    result = lab.executor().run(argv, timeout=600)
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    return result.returncode
