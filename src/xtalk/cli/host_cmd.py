"""`xtalk host show`: the host facts stored with every run (CPU, caches, isolation,
real-time throttling, governor, kernel, KVM and its kind, then each backend's rows: QEMU and
Xen versions...), and the cache hierarchy measured on each backend.
`xtalk host check [SPEC]`: whether the machine can measure now (cli/host_check.py).
`xtalk host caches SPEC`: measure that hierarchy natively and on the spec's backend
(calibration/caches.py) and print it beside what the machine reports."""
from __future__ import annotations

import json

from .common import add_command, add_json, add_out, add_set, add_study_inputs, console, load_spec


ORDER = 50  # its place in `xtalk --help`


def add_parser(sub) -> None:
    p = add_command(sub, "host", "show facts about this host", ["xtalk host show"])
    inner = p.add_subparsers(dest="host_command", required=True, metavar="ACTION")
    show = add_command(inner, "show", "CPU, caches, isolation, governor, kernel, and what each backend adds",
                       ["xtalk host show", "xtalk host show --json"])
    add_json(show, "the host facts")
    add_out(show)
    show.set_defaults(handler=show_host)
    caches = add_command(inner, "caches", "measure the cache hierarchy (levels, sizes, latencies, which are shared, "
                                          "memory bandwidth) natively and in a guest of the spec's backend", [
        "xtalk host caches experiments/caches.toml",
        "xtalk host caches experiments/caches.toml --backend qemu --json"],
        more="The result is kept in the results directory as a fact of this host and backend; size expressions "
             "(l1, l2, llc, shared) resolve against it from then on.")
    add_study_inputs(caches, "its backend and first two CPUs (the measured one and its neighbour's)",
                     "--set backend.accel=tcg")
    caches.add_argument("--backend", nargs="+", metavar="KIND",
                        help="the backends to measure (default: native, and the spec's where it is another)")
    add_json(caches, "the measured hierarchies")
    caches.set_defaults(handler=measure_caches)
    check = add_command(inner, "check", "whether this machine can measure now: other work on the CPUs a campaign "
                                        "would use (naming the busiest processes and their PIDs) and the host facts "
                                        "that weaken a claim; in seconds, before a campaign",
                        ["xtalk host check experiments/quickstart.toml", "xtalk host check --cpus 0 1 --seconds 5"],
                        more="Exit status 1 when the machine cannot measure (the line says why and what to change).")
    check.add_argument("spec", metavar="SPEC", nargs="?", help="campaign spec (TOML file): its cpus")
    add_set(check, "cpus=[2, 3]")
    check.add_argument("--cpus", nargs="+", type=int, metavar="CPU", help="the CPUs to check (default: the spec's, "
                                                                           "else every online CPU)")
    check.add_argument("--seconds", type=float, default=3.0, help="how long to watch them (default 3)")
    add_json(check, "the check")
    check.set_defaults(handler=check_host)


def _caches(facts: dict) -> str:
    return ", ".join(f"L{c['level']} {c['type'].lower()} {c['size_bytes'] // 1024} KiB"
                     for c in facts["caches"]) or "unknown"


def _rt_text(iso: dict) -> str:
    from ..host.metadata import rt_block_us
    runtime, period, block = iso.get("rt_runtime_us"), iso.get("rt_period_us"), rt_block_us(iso)
    if runtime is None or not period:
        return "unknown"
    if block is None:
        return f"none (kernel.sched_rt_runtime_us = {runtime})"
    return f"{runtime:,} µs of every {period:,} µs: a spinning FIFO/RR workload loses up to {block / 1000:g} ms each period"


def measure_caches(args) -> int:
    from ..calibration.caches import measure  # heavy: only when this command runs
    from ..host.metadata import host_facts
    from ..running.derived import holding_cpus
    from .caches_output import print_caches
    spec, raw, _ = load_spec(args.spec, args.overrides)
    kinds = args.backend or list(dict.fromkeys(["native", spec.backend.kind]))
    found = []
    with holding_cpus(spec, args.out, args.wait):
        for kind in kinds:
            derived = raw | {"backend": raw["backend"] if kind == spec.backend.kind else {"kind": kind}}
            found.append(measure(derived, args.out, host_facts()))
    if args.json:
        print(json.dumps(found, indent=1))
    else:
        for record in found:
            print_caches(console(markup=False), record)
    return 0


def check_host(args) -> int:
    from .host_check import check_host as check  # imports the analysis: only when this command runs
    return check(args)


def show_host(args) -> int:
    from rich.table import Table

    from ..host.metadata import host_facts
    from ..plugins import BACKENDS
    from .caches_output import caches_rows
    facts = host_facts()

    if args.json:
        print(json.dumps(facts, indent=2))
        return 0
    kvm = facts["kvm"]
    kvm_text = (f"yes ({kvm['kind']})" if kvm["available"] else f"no ({kvm['reason']})")
    if kvm["emulates_ring0"]:
        kvm_text += " — kvm-pvm: guest ring 0 is emulated, probe loops run in ring 3"
    iso = facts["isolation"]
    rows = [
        ("CPU", facts["cpu_model"]), ("architecture", facts["machine"]),
        ("CPUs online / allowed", f"{facts['online_cpus']} / {facts['allowed_cpus']}"),
        ("caches (cpu0)", _caches(facts)), ("last-level cache", f"{facts['llc_bytes'] // 1024} KiB"),
        ("isolcpus", iso["isolcpus"] or "none"), ("nohz_full", iso["nohz_full"] or "none"),
        ("real-time throttling", _rt_text(iso)),
        ("governor", json.dumps(facts["governors"]) if isinstance(facts["governors"], dict) else facts["governors"]),
        ("kernel", facts["kernel"]), ("KVM", kvm_text),
    ] + [row for kind, cls in BACKENDS.by_name().items() if kind in facts for row in cls.host_rows(facts[kind])]
    rows += caches_rows(args.out, facts["hostname"])
    table = Table(show_header=False, box=None)
    for key, value in rows:
        table.add_row(f"[bold]{key}[/]", str(value))
    console().print(table)
    return 0
