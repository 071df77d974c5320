"""`xtalk lab`: the Xen lab, Xen + dom0 booted under QEMU for tests and trying xtalk
without a board. `xtalk lab start xen --arch arm64` builds it (cached by content hash)
and boots it in the background; campaigns with backend.executor = "lab" use it;
`xtalk lab stop` ends it."""
from __future__ import annotations

import sys

from ..host.arches import ARCHES
from .common import add_arch, add_command

LAB_ARCHES = sorted(ARCHES)  # arm64 first: the default, and the order stop and status go through
KIND_HELP = "the lab: xen (Xen + dom0)"
XEN_HELP = ("Debian's Xen (credit, credit2) or one built from Debian's source with RTDS, null and ARINC653 too "
            "(arm64; minutes to build the first time); default debian")


ORDER = 140  # its place in `xtalk --help`


def add_parser(sub) -> None:
    p = add_command(sub, "lab", "start/stop the Xen lab (Xen + dom0 under QEMU)", [
        "xtalk lab start xen --arch arm64", "xtalk lab stop"])
    inner = p.add_subparsers(dest="lab_command", required=True, metavar="ACTION")
    start = add_command(inner, "start", "build if needed, boot, wait until dom0 answers over ssh", [
        "xtalk lab start xen", "xtalk lab start xen --arch x86_64 --cpus 4 --xen all-schedulers"])
    start.add_argument("kind", choices=["xen"], help=KIND_HELP)
    add_arch(start, "arm64", "arm64")
    start.add_argument("--cpus", type=int, default=None, help="pCPUs of the lab (default 3; dom0 gets pCPU 0)")
    start.add_argument("--memory-mib", type=int, default=None, help="RAM of the lab (default 3072)")
    start.add_argument("--xen", default="debian", choices=["debian", "all-schedulers"], help=XEN_HELP)
    start.set_defaults(handler=do_start)
    build = add_command(inner, "build", "build the lab's boot files only", [
        "xtalk lab build xen", "xtalk lab build xen --xen all-schedulers"])
    build.add_argument("kind", choices=["xen"], help=KIND_HELP)
    add_arch(build, "arm64", "arm64")
    build.add_argument("--xen", default="debian", choices=["debian", "all-schedulers"], help=XEN_HELP)
    build.set_defaults(handler=do_build)
    stop = add_command(inner, "stop", "stop the lab (both arches unless --arch)", [
        "xtalk lab stop", "xtalk lab stop xen --arch arm64"])
    stop.add_argument("kind", nargs="?", choices=["xen"], default="xen", help=KIND_HELP)
    add_arch(stop, None, "both")
    stop.set_defaults(handler=do_stop)
    status = add_command(inner, "status", "which labs run, their ports and boot times", ["xtalk lab status"])
    status.set_defaults(handler=do_status)
    run = add_command(inner, "exec", "run a command in the lab's dom0", [
        "xtalk lab exec -- xl list", "xtalk lab exec --arch x86_64 -- xl info"])
    add_arch(run, "arm64", "arm64")
    run.add_argument("argv", nargs="+", metavar="COMMAND", help="the command and its arguments (after --)")
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
        try:
            lab = vm.current(arch)
        except vm.DamagedState as err:
            print(f"{arch}: {err}")
            continue
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
