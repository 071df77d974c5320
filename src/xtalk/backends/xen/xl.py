"""Xen `xl` for the xen backend: its options model, domain configs generated from the spec,
and parsers of `xl` output (info, list, vcpu-list) and of the build config (schedulers).
Pure functions, unit-tested without Xen.
"""
from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

SCHEDULERS = ("credit", "credit2", "rtds", "null", "arinc653")
XL_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
OWN_KEYS = {"name", "type", "kernel", "ramdisk", "cmdline", "extra", "memory", "maxmem", "vcpus", "maxvcpus", "cpus",
            "cpus_soft", "pool", "weight", "cap", "on_poweroff", "on_reboot", "on_crash"}

# per image: a probe domU is small; a Linux-RT one needs room for the kernel and initramfs
DEFAULTS = {"probe": {"memory_mib": 64, "buffer_slots": 8192},
            "linux-rt": {"memory_mib": 256, "buffer_slots": 65536}}
FOREIGN_MEMORY_MIB = 256  # a domU booting an image of the user's (a Linux kernel needs this much)

XlValue = int | float | str | bool | list[int | float | str]


class XenOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    executor: Literal["local", "lab", "ssh"] = Field(
        default="local", description="local: xtalk runs in dom0; ssh: dom0 at ssh_host; lab: Xen under QEMU")
    ssh_host: str | None = Field(default=None, description="[user@]host of dom0 (executor=ssh)")
    ssh_port: int | None = Field(default=None, ge=1, le=65535)
    ssh_identity: str | None = Field(default=None, description="private key file (default: ssh's own)")
    ssh_known_hosts: str | None = Field(default=None, description="known_hosts file (default: ~/.ssh/known_hosts)")
    lab_xen: Literal["debian", "all-schedulers"] = Field(
        default="debian", description="executor=lab: the lab's Xen (all-schedulers: built with RTDS, null, ARINC653)")
    arch: Literal["arm64", "x86_64"] | None = Field(
        default=None, description="dom0's architecture (default: from xl info; the lab's, for executor=lab)")
    image: Literal["probe", "linux-rt"] = Field(
        default="probe", description="probe (freestanding probe guest) or linux-rt (Debian PREEMPT_RT kernel)")
    memory_mib: int | None = Field(default=None, ge=16, le=65536, description=(
        "memory of each domU (default 64 for probe, 256 for linux-rt and an image of the user's)"))
    vcpus: int = Field(default=1, ge=1, le=64, description=(
        "vCPUs of each domU whose spec gives it none (the probe uses one); a guest's own vcpus wins"))
    scheduler: Literal[SCHEDULERS] | None = Field(  # type: ignore[valid-type]
        default=None, description="run the guests in a cpupool with this scheduler (default: Pool-0 as it is)")
    cpupool: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_.-]+$",
                                description="name of the cpupool for the guests (created with the run's pCPUs)")
    credit2_weight: int | None = Field(default=None, ge=1, le=65535)
    credit2_cap: int | None = Field(default=None, ge=0, le=6400, description="percent of one pCPU, 0 = none")
    credit2_ratelimit_us: int | None = Field(default=None, ge=0, le=500000, description="pool's context-switch rate limit")
    credit_weight: int | None = Field(default=None, ge=1, le=65535)
    credit_cap: int | None = Field(default=None, ge=0, le=6400)
    credit_tslice_ms: int | None = Field(default=None, ge=1, le=1000)
    credit_ratelimit_us: int | None = Field(default=None, ge=0, le=500000)
    rtds_period_us: int | None = Field(default=None, ge=10, le=10_000_000)
    rtds_budget_us: int | None = Field(default=None, ge=10, le=10_000_000)
    rtds_extratime: bool | None = Field(
        default=None, description="RTDS: may the vCPUs run beyond their budget when a pCPU is idle (Xen: yes)")
    soft_affinity: list[int] | None = Field(default=None, description="pCPUs preferred (cpus_soft)")
    llc_colors: list[int] | dict[str, list[int]] | None = Field(default=None, description=(
        "LLC colours (Xen >= 4.20 with colouring): one list for every domU, or a table guest -> colours (the "
        "measurer's name, a stressor's name for all its instances, or one instance's: copy-2); a guest not "
        "named gets every colour, Xen's default"))
    llc_colouring: bool = Field(default=True, description=(
        "give the domUs their llc_colors (false: every domU gets every colour; a [matrix] dimension for "
        "colouring on / off)"))
    buffer_slots: int | None = Field(default=None, ge=16, le=1 << 22, description=(
        "samples the measurer buffers and prints after its window (default 8192 for probe, 65536 for linux-rt)"))
    freq_hz: int | None = Field(default=None, ge=1, description="counter frequency override for the guests")
    xl_extra: dict[str, XlValue] = Field(default_factory=dict, description="extra xl.cfg keys for every domU")
    name_prefix: str = Field(default="xtalk", pattern=r"^[A-Za-z][A-Za-z0-9-]{0,15}$")

    @property
    def memory(self) -> int:
        return self.memory_mib or DEFAULTS[self.image]["memory_mib"]

    @property
    def slots(self) -> int:
        return self.buffer_slots or DEFAULTS[self.image]["buffer_slots"]

    @field_validator("xl_extra")
    @classmethod
    def extra_keys(cls, extra: dict) -> dict:
        for key, value in extra.items():
            if not XL_KEY.match(key):
                raise ValueError(f"{key!r} is not an xl.cfg key")
            if key in OWN_KEYS:
                raise ValueError(f"{key} is set by xtalk; use the backend option for it")
            xl_literal(value)
        return extra


def xl_literal(value: XlValue) -> str:
    """An xl.cfg value: numbers as they are, strings double-quoted, lists in brackets.
    Strings with quotes, backslashes or control characters are refused."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        if any(c in value for c in '"\\') or any(ord(c) < 0x20 or ord(c) == 0x7f for c in value):
            raise ValueError(f"value {value!r}: quotes, backslashes and control characters are not allowed")
        return f'"{value}"'
    if isinstance(value, list):
        return "[" + ", ".join(xl_literal(v) for v in value) + "]"
    raise ValueError(f"unsupported value {value!r}")


def cpu_list(cpus) -> str:
    return ",".join(str(c) for c in cpus)


def colours_wanted(opts: XenOptions) -> bool:
    return bool(opts.llc_colors) and opts.llc_colouring


def guest_colours(opts: XenOptions, guest: str, stressor: str | None = None) -> list[int] | None:
    """The LLC colours of one domU (None: Xen's default, every colour); stressor: the spec
    stressor the guest is an instance of."""
    if not colours_wanted(opts):
        return None
    if isinstance(opts.llc_colors, list):
        return opts.llc_colors
    return opts.llc_colors.get(guest, opts.llc_colors.get(stressor or guest))


def unknown_colour_guests(opts: XenOptions, domus: set[str]) -> list[str]:
    """Names in an llc_colors table that are no domU's (domus: every domU and stressor name)."""
    return sorted(set(opts.llc_colors) - domus) if isinstance(opts.llc_colors, dict) else []


def domain_config(name: str, kernel: str, cmdline: str, opts: XenOptions, cpus, pool: str | None,
                  ramdisk: str | None = None, memory_mib: int | None = None, colours: list[int] | None = None) -> str:
    """The xl.cfg text of one guest (pure; unit-tested); memory_mib: opts.memory unless given;
    colours: its LLC colours (guest_colours)."""
    for token in cmdline.split():
        xl_literal(token)
    lines = {"name": xl_literal(name), "type": '"pvh"', "kernel": xl_literal(kernel)}
    if ramdisk:
        lines["ramdisk"] = xl_literal(ramdisk)
    if cmdline:
        lines["cmdline"] = xl_literal(cmdline)
    several = len(cpus) > 1  # a guest's own vCPUs (vcpus = N): vCPU i's hard affinity is cpus[i]
    lines |= {
        "memory": str(memory_mib or opts.memory), "vcpus": str(len(cpus) if several else opts.vcpus),
        "cpus": ("[" + ", ".join(xl_literal(str(c)) for c in cpus) + "]") if several else xl_literal(cpu_list(cpus)),
        # preserved so poll_exit can tell poweroff from crash; stop() destroys them
        "on_poweroff": '"preserve"', "on_reboot": '"destroy"', "on_crash": '"preserve"',
    }
    if opts.soft_affinity:
        lines["cpus_soft"] = xl_literal(cpu_list(opts.soft_affinity))
    if pool:
        lines["pool"] = xl_literal(pool)
    weight = opts.credit2_weight or opts.credit_weight
    cap = opts.credit2_cap if opts.credit2_cap is not None else opts.credit_cap
    if weight is not None:
        lines["weight"] = str(weight)
    if cap is not None:
        lines["cap"] = str(cap)
    if colours:
        lines["llc_colors"] = xl_literal([str(c) for c in colours])
    for key, value in opts.xl_extra.items():
        lines[key] = xl_literal(value)
    return "".join(f"{k} = {v}\n" for k, v in lines.items())


def pin_commands(name: str, cpus, soft: str = "-") -> list[list[str]]:
    """`xl vcpu-pin` of a domain: with several vCPUs (the spec's vcpus) vCPU i to cpus[i]
    alone; with one, every vCPU to cpus (soft: its soft affinity, "-" leaves it)."""
    if len(cpus) > 1:
        return [["xl", "vcpu-pin", name, str(i), str(cpu), soft] for i, cpu in enumerate(cpus)]
    return [["xl", "vcpu-pin", name, "all", cpu_list(cpus), soft]]


def affinity_problem(name: str, cpus, rows: list[dict]) -> str | None:
    """What is wrong with a domain's pinning in its `xl vcpu-list` rows (None: nothing):
    with several vCPUs, vCPUs 0..N-1 each listed once with cpus[i] as its hard affinity;
    with one, every vCPU listed (at least one) pinned to cpus."""
    listed = sorted(r["vcpu"] for r in rows)
    if len(cpus) > 1 and listed != list(range(len(cpus))):
        return f"{name}: xl vcpu-list shows vCPUs {listed}, not the {len(cpus)} asked for (0-{len(cpus) - 1})"
    if not listed:
        return f"{name}: xl vcpu-list shows no vCPU"
    for r in rows:
        want = {cpus[r["vcpu"]]} if len(cpus) > 1 else set(cpus)
        if expand_cpus(r["hard_affinity"]) != want:
            return f"{name}: vCPU {r['vcpu']} hard affinity {r['hard_affinity']} is not {cpu_list(sorted(want))}"
    return None


def parse_xl_info(text: str) -> dict[str, str]:
    info = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            info[key.strip()] = value.strip()
    return info


def parse_xl_list(text: str) -> dict[str, dict]:
    """`xl list` -> {name: {id, state, time_s}} (time_s: the domain's CPU time, in tenths)."""
    out = {}
    for line in text.splitlines()[1:]:
        parts = line.split()
        if len(parts) >= 6:
            try:
                time_s = float(parts[5])
            except ValueError:
                time_s = None
            out[parts[0]] = {"id": int(parts[1]), "state": parts[4], "time_s": time_s}
    return out


def parse_vcpu_list(text: str) -> list[dict]:
    rows = []
    for line in text.splitlines()[1:]:
        m = re.match(r"^(\S+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\S+)\s+([\d.]+)\s+(.*?)\s*/\s*(.*)$", line)
        if m:
            rows.append({"name": m[1], "domid": int(m[2]), "vcpu": int(m[3]), "cpu": m[4], "state": m[5],
                         "time_s": float(m[6]), "hard_affinity": m[7].strip(), "soft_affinity": m[8].strip()})
    return rows


def expand_cpus(text: str) -> set[int] | None:
    """'1', '1-3,5', 'all' -> a set (None for 'all')."""
    if text.strip() == "all":
        return None
    cpus: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        if "-" in part:
            lo, hi = part.split("-")
            cpus |= set(range(int(lo), int(hi) + 1))
        elif part:
            cpus.add(int(part))
    return cpus


def schedulers_from_config(config: str) -> list[str] | None:
    """Schedulers a Xen build has, from its .config (hypfs /buildinfo/config)."""
    if "CONFIG_SCHED_" not in config:
        return None
    names = {"CREDIT": "credit", "CREDIT2": "credit2", "RTDS": "rtds", "NULL": "null", "ARINC653": "arinc653"}
    return [v for k, v in names.items() if re.search(rf"^CONFIG_SCHED_{k}=y$", config, re.M)]


def llc_coloring_on(info: dict[str, str], config: str | None) -> bool:
    """Whether Xen colours the LLC: 4.20 or later, built with CONFIG_LLC_COLORING (when its
    build config is readable: Debian's 4.20 has it off and ignores the boot options) and
    booted with llc-coloring on, or with llc-size and llc-nr-ways and llc-coloring not off."""
    version = tuple(int(info.get(k, "0") or 0) for k in ("xen_major", "xen_minor"))
    built = config is None or re.search(r"^CONFIG_LLC_COLORING=y$", config, re.M) is not None
    args = dict(arg.partition("=")[::2] for arg in info.get("xen_commandline", "").split())
    flag = args.get("llc-coloring")
    on = (flag is not None and flag.lower() in ("", "on", "1", "true", "yes", "enable")
          or flag is None and "llc-size" in args and "llc-nr-ways" in args)
    return version >= (4, 20) and built and on
