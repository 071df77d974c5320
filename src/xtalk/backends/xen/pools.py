"""Cpupools and scheduler parameters for the xen backend, through `xl`.

A run that asks for a scheduler or a named cpupool gets a pool holding the run's pCPUs
(created when missing; the pCPUs moved in from where they were); pool-wide settings
(credit2/credit rate limit, credit time slice) are set and their old values remembered.
teardown() gives everything back: old values, pCPUs to their pools, created pools destroyed,
and dom0's vCPU pinning (Xen resets a vCPU pinned to a pCPU that leaves its pool to "all").
Per-domain parameters (weight, cap, RTDS period/budget) are xl commands run right after
`xl create -p`, followed by a read-back of the values in force for the run's record.
"""
from __future__ import annotations

import os
import re
from typing import Callable

from .xl import XenOptions, expand_cpus, parse_vcpu_list

PARAMETRISED = ("credit", "credit2", "rtds")  # schedulers whose parameters xl can show and set


class CpuPools:
    def __init__(self, xl: Callable, default_scheduler: str | None):
        self.xl = xl  # xl(*args, check=True, timeout=60) -> executors.Result
        self.default_scheduler = default_scheduler or "credit2"
        self.pool: str | None = None
        self.created = False
        self.scheduler: str | None = None
        self.moved: list[dict] = []
        self.saved: dict[tuple[str, str, str], str] = {}
        self.dom0_pins: dict[int, str] = {}  # dom0 vCPU -> hard affinity before pCPUs moved

    def owners(self) -> dict[int, str]:
        """pCPU -> the pool it is in."""
        owner = {}
        for line in self.xl("cpupool-list", "-c").stdout.splitlines()[1:]:
            parts = line.split()
            if len(parts) >= 2:
                for c in expand_cpus(parts[1]) or set():
                    owner[c] = parts[0]
        return owner

    def sweep(self, prefix: str) -> list[str]:
        """Destroy the pools a killed xtalk left: named <prefix>-<pid> (a run's pool) or
        <prefix>-probe-<scheduler>, their pCPUs back in Pool-0. Pools the spec named are
        left alone (they may be the user's). Run after the domains are swept."""
        pattern = re.compile(rf"^{re.escape(prefix)}-(\d+|probe-[a-z0-9]+)$")
        owner = self.owners()
        gone = []
        for line in self.xl("cpupool-list").stdout.splitlines()[1:]:
            name = (line.split() or [""])[0]
            if pattern.match(name):
                for cpu in sorted(c for c, pool in owner.items() if pool == name):
                    self.xl("cpupool-cpu-remove", name, str(cpu), check=False)
                    self.xl("cpupool-cpu-add", "Pool-0", str(cpu), check=False)
                self.xl("cpupool-destroy", name, check=False)
                gone.append(name)
        return gone

    def scheduler_of(self, pool: str) -> str | None:
        for line in self.xl("cpupool-list", pool, check=False).stdout.splitlines()[1:]:
            parts = line.split()
            if parts and parts[0] == pool and len(parts) >= 3:
                return parts[2]
        return None

    def setup(self, cpus: list[int], opts: XenOptions) -> dict:
        """The pool the run's guests go in (None: where their pCPUs already are); its record."""
        self.pool, self.created, self.moved = None, False, []
        if opts.scheduler or opts.cpupool:
            self.pool = opts.cpupool or f"{opts.name_prefix}-{os.getpid()}"
            pools = self.xl("cpupool-list").stdout
            if not any(line.split()[:1] == [self.pool] for line in pools.splitlines()[1:]):
                sched = opts.scheduler or self.default_scheduler
                self.xl("cpupool-create", f'name="{self.pool}"', f'sched="{sched}"')
                self.created = True
            owner = self.owners()
            self.dom0_pins = self._dom0_pins()
            for cpu in cpus:
                if owner.get(cpu) != self.pool:
                    if owner.get(cpu):
                        self.xl("cpupool-cpu-remove", owner[cpu], str(cpu))
                    self.xl("cpupool-cpu-add", self.pool, str(cpu))
                    self.moved.append({"cpu": cpu, "from": owner.get(cpu)})
        pool = self.pool or self.owners().get(cpus[0], "Pool-0")
        self.scheduler = self.scheduler_of(pool) or self.default_scheduler
        self._pool_params(pool, opts)
        record = {"pool": pool, "pool_params": self.state(pool)}
        if self.moved:
            record["moved_cpus"] = list(self.moved)
        return record

    def _pool_params(self, pool: str, opts: XenOptions) -> None:
        """Pool-wide scheduler settings: set what the run asks for, remember the old value."""
        wanted = []
        if opts.credit2_ratelimit_us is not None:
            wanted.append(("sched-credit2", "-r", opts.credit2_ratelimit_us, r"ratelimit=(\d+)us"))
        if opts.credit_ratelimit_us is not None:
            wanted.append(("sched-credit", "-r", opts.credit_ratelimit_us, r"ratelimit=(\d+)us"))
        if opts.credit_tslice_ms is not None:
            wanted.append(("sched-credit", "-t", opts.credit_tslice_ms, r"tslice=(\d+)ms"))
        for cmd, flag, value, pattern in wanted:
            m = re.search(pattern, self.xl(cmd, "-s", "-p", pool).stdout)
            if m and (pool, cmd, flag) not in self.saved and not self.created:
                self.saved[(pool, cmd, flag)] = m[1]
            self.xl(cmd, "-s", "-p", pool, flag, str(value))

    def state(self, pool: str) -> dict:
        sched = self.scheduler_of(pool)
        out = {"pool": pool, "scheduler": sched}
        if sched in PARAMETRISED:
            out["pool_params"] = self.xl(f"sched-{sched}", "-s", "-p", pool, check=False).stdout.strip()
        return out

    def domain_commands(self, name: str, opts: XenOptions) -> list[list[str]]:
        """xl commands setting one domain's scheduler parameters, then reading them back."""
        sched, cmds = self.scheduler, []
        weight_cap = {"credit2": (opts.credit2_weight, opts.credit2_cap),
                      "credit": (opts.credit_weight, opts.credit_cap)}.get(sched)
        if weight_cap and any(v is not None for v in weight_cap):
            args = ["-d", name]
            for flag, value in zip(("-w", "-c"), weight_cap):
                if value is not None:
                    args += [flag, str(value)]
            cmds.append(["xl", f"sched-{sched}", *args])
        if sched == "rtds" and opts.rtds_period_us is not None:  # xl wants -e with -p and -b
            extratime = "0" if opts.rtds_extratime is False else "1"  # Xen's default for new vCPUs: 1
            cmds.append(["xl", "sched-rtds", "-d", name, "-v", "all", "-p", str(opts.rtds_period_us),
                         "-b", str(opts.rtds_budget_us), "-e", extratime])
        if sched in PARAMETRISED:
            cmds.append(self.readback(name))
        return cmds

    def readback(self, name: str) -> list[str]:
        """The xl command printing a domain's scheduler parameters in force (per vCPU for RTDS)."""
        return ["xl", f"sched-{self.scheduler}", "-d", name] + (["-v", "all"] if self.scheduler == "rtds" else [])

    def teardown(self) -> None:
        for (pool, cmd, flag), value in list(self.saved.items()):
            self.xl(cmd, "-s", "-p", pool, flag, value, check=False)
        self.saved.clear()
        if self.pool and self.created:
            home = {m["cpu"]: m["from"] for m in self.moved if m["from"]}
            for cpu, name in self.owners().items():
                if name == self.pool:
                    self.xl("cpupool-cpu-remove", self.pool, str(cpu), check=False)
                    self.xl("cpupool-cpu-add", home.get(cpu, "Pool-0"), str(cpu), check=False)
            self.xl("cpupool-destroy", self.pool, check=False)
        elif self.pool:
            for moved in self.moved:
                if moved["from"]:
                    self.xl("cpupool-cpu-remove", self.pool, str(moved["cpu"]), check=False)
                    self.xl("cpupool-cpu-add", moved["from"], str(moved["cpu"]), check=False)
        if self.dom0_pins:
            for vcpu, affinity in self._dom0_pins().items():
                if affinity != self.dom0_pins.get(vcpu, affinity):
                    self.xl("vcpu-pin", "Domain-0", str(vcpu), self.dom0_pins[vcpu], check=False)
        self.pool, self.created, self.moved, self.dom0_pins = None, False, [], {}

    def _dom0_pins(self) -> dict[int, str]:
        return {r["vcpu"]: r["hard_affinity"] for r in parse_vcpu_list(self.xl("vcpu-list", "Domain-0").stdout)}
