"""`xtalk host show`: the host facts stored with every run (CPU, caches, isolation,
real-time throttling, governor, kernel, KVM and its kind, then each backend's rows: QEMU and Xen versions...)."""
from __future__ import annotations

import json

from rich.table import Table

from ..plugins import BACKENDS
from ..host.metadata import host_facts, rt_block_us
from .common import add_command, add_json, console


ORDER = 50  # its place in `xtalk --help`


def add_parser(sub) -> None:
    p = add_command(sub, "host", "show facts about this host", ["xtalk host show"])
    inner = p.add_subparsers(dest="host_command", required=True, metavar="ACTION")
    show = add_command(inner, "show", "CPU, caches, isolation, governor, kernel, and what each backend adds",
                       ["xtalk host show", "xtalk host show --json"])
    add_json(show, "the host facts")
    show.set_defaults(handler=show_host)


def _caches(facts: dict) -> str:
    return ", ".join(f"L{c['level']} {c['type'].lower()} {c['size_bytes'] // 1024} KiB"
                     for c in facts["caches"]) or "unknown"


def _rt_text(iso: dict) -> str:
    runtime, period, block = iso.get("rt_runtime_us"), iso.get("rt_period_us"), rt_block_us(iso)
    if runtime is None or not period:
        return "unknown"
    if block is None:
        return f"none (kernel.sched_rt_runtime_us = {runtime})"
    return f"{runtime:,} µs of every {period:,} µs: a spinning FIFO/RR workload loses up to {block / 1000:g} ms each period"


def show_host(args) -> int:
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
    table = Table(show_header=False, box=None)
    for key, value in rows:
        table.add_row(f"[bold]{key}[/]", str(value))
    console().print(table)
    return 0
