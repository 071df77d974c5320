"""The interference channels xtalk knows, each with the stressor that loads it by default.

A channel is a shared resource through which a neighbour can delay the measurer. Which
stressors load which channels is declared by the stressors themselves, in the catalogue
(guests/lib/catalogue.c: `channels`); this file names the channels, says who shares each
one, and picks one default stressor configuration per channel: the untuned neighbour a
channel study runs and a worst-case search must beat. docs/channels.md explains them and
maps them to the words of AMC 20-193 and IEC 61508-3 Annex F.

Caveats: the defaults are starting points, not worst cases (that is `xtalk search`); L1
and L2 are private to a core on the hosts we know, so only a neighbour on the measurer's
own core (time-sharing it) can load them; `interconnect` has no stressor of its own here
(memory-bandwidth stressors load it too, inseparably), so it is always listed untested
with that reason.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..plugins import backend_class
from ..spec import catalogue


@dataclass(frozen=True)
class Channel:
    name: str
    title: str
    shared_by: str            # "core": neighbours on the measurer's core; "cores": all cores; "hypervisor"
    bench: str | None         # the default stressor; None: no stressor isolates it
    params: dict = field(default_factory=dict)
    why_none: str = ""        # why there is no default stressor
    not_on: dict[str, str] = field(default_factory=dict)   # backend kind -> why it is not exercised there
    min_vcpus: int = 1        # the measurer's vCPUs it needs (the lock holder's siblings)


CHANNELS = (
    Channel("cpu", "CPU time of the measurer's core", "core", "cpu_spin"),
    Channel("l1", "L1 data cache", "core", "cache_thrash", {"size": "l1"}),
    Channel("l2", "L2 cache", "core", "cache_thrash", {"size": "l2"}),
    # two buffers each: the llc one cycles through twice the shared level (each line used again a
    # pass later, so the level keeps it), the membw one through four times the LLC (from memory)
    Channel("llc", "last-level cache", "cores", "memcpy", {"size": "shared"}),
    Channel("membw", "memory bandwidth", "cores", "memcpy", {"size": "llc*2"}),
    Channel("memlat", "memory latency (DRAM banks and rows)", "cores", "membus",
            {"size": "llc*2", "line": "4k", "mode": "write"}),
    Channel("interconnect", "on-chip interconnect", "cores", None,
            why_none="no stressor here loads the interconnect apart from memory bandwidth (membw loads it too); "
                     "it needs a platform-specific stressor (DMA, a device)"),
    # a neighbour on a vCPU's CPU preempts it, now and then while it holds a lock its sibling vCPUs spin
    # on (seed 003's vCPU preemption); the measurer's own vCPUs stacked on one CPU is a placement of
    # the measurer (measurer.vcpu_placement), not a neighbour: docs/channels.md
    Channel("lock", "lock-holder preemption (a vCPU preempted holding a lock its siblings wait on)", "core",
            "cpu_spin", min_vcpus=2),
    Channel("irq", "interrupts and timers", "hypervisor", "irq_storm"),
    Channel("hv", "hypervisor exits and scheduling", "hypervisor", "vmexit_storm",
            not_on={"native": "no hypervisor: native processes make no VM exits (vmexit_storm makes syscalls "
                              "there, another channel)"}),
)
BY_NAME = {c.name: c for c in CHANNELS}


def why_not(channel: Channel, kind: str, options: dict, vcpus: int = 1) -> str | None:
    """Why `channel` cannot be exercised on this backend with a measurer of `vcpus`
    vCPUs, None when it can."""
    if channel.bench is None:
        return channel.why_none
    if vcpus < channel.min_vcpus:
        return (f"the measurer runs {vcpus} vCPU: no sibling waits on a lock its holder keeps while preempted "
                f"(give measurer.vcpus = {channel.min_vcpus} and a bench whose vCPUs share a lock: lock)")
    if kind in channel.not_on:
        return f"{kind}: {channel.not_on[kind]}"
    cls = backend_class(kind)
    suites = cls.suites(options) if cls is not None else None
    bench = catalogue.load().bench(channel.bench, suites or ())
    if bench is None:
        return f"{channel.bench}, its stressor, is not in the suites this backend's guests run ({', '.join(suites or ())})"
    if channel.name not in bench.channels:
        return f"{channel.bench} does not declare channel {channel.name} in the catalogue"
    return None


def loading(name: str) -> list[str]:
    """The stressor benches (any suite) that declare they load channel `name`."""
    return sorted({b.name for s in catalogue.load().suites.values() for b in s.benches.values()
                   if name in b.channels})
