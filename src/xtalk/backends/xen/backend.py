"""The `xen` backend: every guest is a Xen domU (the probe image, Debian's PREEMPT_RT
kernel with xtalk's initramfs, or the workload's own image: images.py), driven with
`xl` in dom0 through an executor: local (xtalk runs in dom0), ssh (a board's dom0) or lab
(Xen + dom0 booted under QEMU by `xtalk lab start xen`, reached over ssh). Connecting,
retrying a command the link dropped, and what the Xen offers: host.py.

Per run: domain configs are generated from the spec (kernel, cmdline = the workload's
key=value tokens, memory, vcpus, `cpus=` hard affinity = the run's pCPUs, soft affinity,
pool, scheduler parameters, extra xl keys), each domain is created paused
(`xl create -p`), pinned (`xl vcpu-pin`, verified with `xl vcpu-list`; a guest with
several vCPUs: vCPU i to its own pCPU, listed again before its destroy) and unpaused in the
runner's start order; pause/resume are `xl pause/unpause`. A scheduler or pool asked
for gets a cpupool of its own holding the run's pCPUs, given back afterwards
(pools.py). A scheduler the Xen build lacks (host.py) is an error before any
domain exists.

Host stressors (`host = true`) run in dom0: dom0.py.

Console: xenconsoled logs each guest to /var/log/xen/console/guest-<name>.log; a
`tail -F` of that file runs through the executor and a reader thread feeds a pipe the
runner reads. No shared memory here: the measurer buffers its samples and prints them
as XT SAMPLE lines after its window (buffer_slots). Every domain this backend creates
is destroyed in every outcome (stop() is idempotent; cleanup() sweeps the run's name
prefix); its console log is copied into the run directory first.
Caveat: the run's time origin is when XT BEGIN reaches xtalk, so console latency
(tens of ms over ssh, more in the TCG lab) shifts timeline events by that much.
"""
from __future__ import annotations

import json
import os
import shutil
import threading
import time
from pathlib import Path

from pydantic import ValidationError

from ...host.arches import normalise
from ...plugins import BACKENDS
from ...errors import InfrastructureError, Problem, SpecError
from ...host.metadata import read_fact
from ...images import linux_rt
from ...spec.plan import GuestPlan, RunPlan
from ..base import Backend, BoardAccess, GuestHandle, Vitals, runs_on_each_vcpu
from ...remote.executors import TransportError, tail
from .target import TargetGuard
from .console import DomainWatcher, GuestConsole
from .dom0 import Dom0Stressors
from .metadata import XenGuestFacts, XenMetadata
from .host import XenHost
from .images import DomainImage
from .pools import CpuPools
from .xl import (XenOptions, affinity_problem, cpu_list, domain_config, guest_colours, parse_vcpu_list, parse_xl_list,
                 pin_commands, unknown_colour_guests)

CONSOLE_DIR = "/var/log/xen/console"
WORK_DIR = "/run/xtalk"
CATCH_UP_S = 8.0        # how long stop()/poll_exit wait for the console stream to catch up
# `sh -c SET_PAUSED set-paused pause|unpause NAME`: xl pause/unpause unless the domain is so already
SET_PAUSED = ('state=$(xl list "$2" | awk -v n="$2" \'$1 == n {print $5}\') || exit 1; '
              '[ -n "$state" ] || { echo "no domain $2" >&2; exit 1; }; '
              'case "$state" in *p*) now=pause ;; *) now=unpause ;; esac; '
              '[ "$now" = "$1" ] || exec xl "$1" "$2"')  # one line: executors refuse control characters
# `sh -c DESTROY_IF_THERE destroy NAME`: xl destroy the domain if it exists
DESTROY_IF_THERE = 'if xl domid "$1" >/dev/null 2>&1; then exec xl destroy "$1"; fi'


@BACKENDS.register
class XenBackend(Backend):
    name = "xen"
    boot_s = 5.0
    Metadata = XenMetadata
    GuestFacts = XenGuestFacts
    host_backend_class = Dom0Stressors
    Options = XenOptions
    reach = "xen-dom0"  # a fleet board's dom0, driven from here over ssh (executor ssh)

    @classmethod
    def host_facts(cls) -> dict:
        """The Xen this host runs under (as a dom0 or a guest), if any, and whether xl is here."""
        hv = read_fact("/sys/hypervisor/type")
        version = None
        if hv == "xen":
            major, minor = read_fact("/sys/hypervisor/version/major"), read_fact("/sys/hypervisor/version/minor")
            version = f"{major}.{minor}{read_fact('/sys/hypervisor/version/extra')}"
        return {"hypervisor_type": hv or None, "xen_version": version, "xl": shutil.which("xl") is not None}

    @classmethod
    def host_rows(cls, facts: dict) -> list[tuple[str, str]]:
        return [("Xen", facts["xen_version"] or ("xl found" if facts["xl"] else "not running under Xen"))]

    @classmethod
    def version_rows(cls, facts: dict) -> list[tuple[str, str | None]]:
        return [("Xen", facts.get("xen_version"))]

    @classmethod
    def board_values(cls, kind_options: dict, backend: dict, board: BoardAccess) -> dict:
        """A xen-dom0 board: the xen executor over ssh to the board's dom0, the fleet kind's
        xen options where the spec's [backend] has none."""
        values = {k: v for k, v in kind_options.items() if k not in backend} | dict(
            executor="ssh", ssh_identity=board.identity, ssh_known_hosts=board.known_hosts, ssh_host=board.host,
            ssh_port=board.port)
        return {f"backend.{k}": v for k, v in values.items() if v is not None}

    @classmethod
    def check_options(cls, options: dict) -> list[tuple[str, str]]:
        try:
            opts = XenOptions.model_validate(options)
        except ValidationError as err:
            # a union's members appear in the location as type tags (list[int]): not a user's field
            found = {".".join(str(p) for p in e["loc"] if "[" not in str(p)): f"unknown option for the {cls.name} "
                     "backend" if e["type"] == "extra_forbidden" else e["msg"].removeprefix("Value error, ")
                     for e in reversed(err.errors())}
            return list(found.items())
        problems = []
        if opts.executor == "ssh" and not opts.ssh_host:
            problems.append(("ssh_host", "executor = \"ssh\" needs ssh_host"))
        if opts.executor != "lab" and opts.lab_xen != "debian":
            problems.append(("lab_xen", f"only used with executor = \"lab\" (executor is {opts.executor!r})"))
        if opts.executor != "ssh" and opts.ssh_host:
            problems.append(("ssh_host", f"only used with executor = \"ssh\" (executor is {opts.executor!r})"))
        if opts.image == "linux-rt" and opts.memory < linux_rt.MIN_MEMORY_MIB:
            problems.append(("memory_mib", f"must be >= {linux_rt.MIN_MEMORY_MIB} for image linux-rt"))
        if opts.rtds_extratime is not None and opts.rtds_period_us is None:
            problems.append(("rtds_extratime", "give it with rtds_period_us and rtds_budget_us"))
        if (opts.rtds_period_us is None) != (opts.rtds_budget_us is None):
            problems.append(("rtds_budget_us", "give rtds_period_us and rtds_budget_us together"))
        elif opts.rtds_period_us is not None and opts.rtds_budget_us > opts.rtds_period_us:
            problems.append(("rtds_budget_us", "the budget cannot exceed the period"))
        wanted = {"credit2": ("credit2_weight", "credit2_cap", "credit2_ratelimit_us"),
                  "credit": ("credit_weight", "credit_cap", "credit_tslice_ms", "credit_ratelimit_us"),
                  "rtds": ("rtds_period_us", "rtds_budget_us", "rtds_extratime")}
        for sched, keys in wanted.items():
            for key in keys:
                if getattr(opts, key) is not None and opts.scheduler not in (None, sched):
                    problems.append((key, f"a {sched} parameter, but scheduler is {opts.scheduler!r}"))
        return problems

    @classmethod
    def check_spec(cls, raw: dict) -> list[tuple[tuple, str]]:
        """An x86-64 probe guest starts no second vCPU under Xen (PVH: no VCPUOP_up yet)."""
        backend = raw.get("backend") if isinstance(raw.get("backend"), dict) else {}
        options = {**backend, **(backend.get("xen") if isinstance(backend.get("xen"), dict) else {})}
        if cls.guest_arch(options) != "x86_64":
            return []
        stressors = raw.get("stressors") if isinstance(raw.get("stressors"), list) else []
        workloads = [(("measurer",), raw.get("measurer"))] + [(("stressors", i), s) for i, s in enumerate(stressors)]
        return [(loc + ("vcpus",), "the x86-64 probe guest runs one vCPU under Xen (it cannot start more there yet): "
                                   "use the arm64 Xen lab, or the qemu backend")
                for loc, w in workloads if isinstance(w, dict) and isinstance(w.get("vcpus"), int)
                and w["vcpus"] > 1 and runs_on_each_vcpu(str(w.get("bench")))]

    @classmethod
    def guest_arch(cls, options: dict) -> str | None:
        """backend.arch; the lab's default (arm64) with executor lab; else dom0's, unknown here."""
        return normalise(options.get("arch")) or ("arm64" if options.get("executor") == "lab" else None)

    @classmethod
    def cpu_scope(cls, options: dict) -> str:
        """The pCPUs of the Xen the executor drives: the one this host runs under (local),
        the lab's of its arch, or the one at ssh_host; leased on this host only, so two controllers
        driving one board do not see each other's leases."""
        opts = XenOptions.model_validate(options)
        return {"local": "xen", "lab": f"xen lab {cls.guest_arch(options)}"}.get(opts.executor) or \
            f"xen {opts.ssh_host}:{opts.ssh_port or 22}"

    @classmethod
    def accepts(cls, host: dict) -> tuple[bool, str]:
        return True, ""  # whether dom0 is reachable is known only once the executor connects

    def __init__(self, options: dict):
        super().__init__(options)
        self.opts = XenOptions.model_validate(options)
        self.run_meta: dict = {}
        self.host = XenHost(self.opts, self._note_transport_failure)
        try:
            self.host.check_scheduler(self.opts, "backend.scheduler")
            self.pools = CpuPools(self.host.xl, self.host.info.get("xen_scheduler"))
            # domains and cpupools an earlier, killed xtalk left behind
            self.swept = {"domains": self._sweep(f"{self.opts.name_prefix}-"),
                          "cpupools": self.pools.sweep(self.opts.name_prefix)}
        except BaseException:
            self.host.release()
            raise
        self.run_opts = self.opts
        self.run_dir: Path | None = None
        self.image = DomainImage(self.opts.image, self.host.arch)
        self.domains: dict[str, dict] = {}
        self.watcher: DomainWatcher | None = None
        self.token = f"{self.opts.name_prefix}-{os.getpid()}-r0"
        self.guard = TargetGuard(self.host, self.host.executor.label)

    def _note_transport_failure(self, message: str) -> None:
        """A command the link dropped (retried, or checked and redone): kept in the run's metadata."""
        self.run_meta.setdefault("transport_failures", []).append(message)

    def _sweep(self, prefix: str) -> list[str]:
        """Destroy every domain whose name starts with prefix; the names destroyed."""
        listing = self.host.xl("list", check=False)
        gone = []
        for name in parse_xl_list(listing.stdout):
            if name.startswith(prefix):
                self.host.xl("destroy", name, check=False, timeout=60)
                gone.append(name)
        return gone

    # -- per run ------------------------------------------------------------------
    measures_local_cpus = False
    reads_run_options = True  # one dom0 connection (and lab lock) per campaign; options checked per run

    @classmethod
    def host_suites(cls, options: dict) -> tuple[str, ...]:
        return ("posix",)  # xtalk-rt in dom0 (dom0.py)

    def host_backend(self) -> Backend:
        """Host stressors run in dom0, next to the domUs (dom0.py)."""
        if self._host is None:
            self._host = Dom0Stressors(self.host, self.opts.name_prefix, lambda: self.token, self.guard.reachable)
        return self._host

    @classmethod
    def shared_cpu_refusal(cls, options: dict) -> str | None:
        if options.get("scheduler") == "null":
            return "the null scheduler runs one vCPU per pCPU (a second one on a pCPU never runs)"
        return None

    def check_plan(self, runs: list[RunPlan]) -> None:
        domus = {"measurer"} | {n for run in runs for s in run.spec.stressors if not s.host
                                for n in [s.name, *s.guest_names()]}
        for run in runs:
            opts = XenOptions.model_validate(run.spec.backend.options)
            self.host.check_scheduler(opts, "backend.scheduler")
            for name in unknown_colour_guests(opts, domus):
                raise SpecError("backend", [Problem(f"backend.llc_colors.{name}", (
                    f"no domU of this campaign is called {name!r} (its domUs: {', '.join(sorted(domus))})"))])
            if (opts.scheduler or opts.cpupool) and any(g.host for g in run.guests):
                raise SpecError("backend", [Problem("backend.scheduler" if opts.scheduler else "backend.cpupool", (
                    f"run {run.run_id}: a dom0 stressor (host = true) runs on dom0's vCPUs, which stay in dom0's "
                    f"cpupool; a scheduler or cpupool moves the run's pCPUs out of it"))])

    def prepare(self, run: RunPlan, run_dir: Path) -> None:
        self.run_dir, self.domains = run_dir, {}
        self.token = f"{self.opts.name_prefix}-{os.getpid()}-r{run.index}"
        self.run_meta = {"domains": {}, "vcpu_list": [], "sched": {}}
        try:
            self.guard.before_run()
        finally:
            if decided := self.guard.taken():
                self.run_meta["target"] = decided
        try:
            opts = XenOptions.model_validate(run.spec.backend.options)
        except ValidationError as err:
            e = err.errors()[0]
            raise SpecError("backend", [Problem("backend." + ".".join(map(str, e["loc"])), e["msg"])]) from None
        for key in ("executor", "ssh_host", "ssh_port", "arch", "image", "lab_xen"):
            if getattr(opts, key) != getattr(self.opts, key):
                raise SpecError("backend", [Problem(f"backend.{key}", "cannot vary between runs of a campaign")])
        self.host.check_scheduler(opts, "backend.scheduler")
        bad = sorted({c for g in run.guests for c in g.cpus} | set(opts.soft_affinity or ()))
        bad = [c for c in bad if c >= self.host.nr_cpus]
        if bad:
            raise SpecError("backend", [Problem("cpus", f"pCPU(s) {bad} do not exist: this Xen has "
                                                         f"{self.host.nr_cpus} (0-{self.host.nr_cpus - 1})")])
        self.run_opts = opts
        self.host.run(["mkdir", "-p", WORK_DIR]).check()
        self.image.upload(self.host.executor, self.host.run, run.guests)
        pools = self.pools.setup(sorted({c for g in run.guests for c in g.cpus}), opts)
        self.run_meta["pool"] = pools["pool"]
        self.run_meta["sched"]["pool_params"] = pools["pool_params"]
        if "moved_cpus" in pools:
            self.run_meta["moved_cpus"] = pools["moved_cpus"]
        self.watcher = DomainWatcher(self.host.executor)

    def _domain_name(self, guest: GuestPlan) -> str:
        return f"{self.token}-{guest.name}"

    def start(self, guest: GuestPlan, run: RunPlan, paused: bool = False) -> GuestHandle:
        """Create paused, pin, set scheduler parameters, unpause: one round trip to dom0.
        A guest started while the measurer runs is created in a background thread, so
        the runner keeps reading the measurer's console meanwhile (xl create takes
        seconds in the lab); pause/resume/stop of that guest wait for its creation."""
        name = self._domain_name(guest)
        boot = self.image.boot(guest, run, self.run_opts, self.host.tsc_hz)
        try:
            config = domain_config(name, boot.kernel, boot.cmdline, self.run_opts, guest.cpus, self.pools.pool,
                                   boot.ramdisk, boot.memory_mib, guest_colours(self.run_opts, guest.name, guest.stressor))
        except ValueError as err:
            raise SpecError("spec", [Problem(f"{guest.name}", f"cannot pass to Xen: {err}")]) from None
        state = {"name": name, "role": guest.role, "log": f"{CONSOLE_DIR}/guest-{name}.log", "config": config,
                 "console": GuestConsole(), "stopped": False, "exit": None, "last_poll": 0.0, "thread": None,
                 "error": None}
        handle = GuestHandle(guest, console_fd=state["console"].read_fd, backend_state=state)
        measurer_running = any(d["role"] == "measurer" for d in self.domains.values())
        self.domains[guest.name] = state
        if measurer_running:
            state["thread"] = threading.Thread(target=self._create_async, args=(handle, paused), daemon=True,
                                               name=f"xen-create {name}")
            state["thread"].start()
            return handle
        try:
            self._create(handle, paused)
        except BaseException:
            self.stop(handle)
            raise
        return handle

    def _create_async(self, handle: GuestHandle, paused: bool) -> None:
        try:
            self._create(handle, paused)
        except BaseException as err:  # noqa: BLE001 - raised where the runner next touches the guest
            handle.backend_state["error"] = err

    def _wait_created(self, handle: GuestHandle, raise_error: bool = True) -> None:
        state = handle.backend_state
        if state.get("thread") is not None:
            state["thread"].join()
        if raise_error and state.get("error") is not None:
            raise InfrastructureError(f"{state['name']}: creating the domain failed: {state['error']}")

    def _create(self, handle: GuestHandle, paused: bool) -> None:
        state, guest, opts = handle.backend_state, handle.plan, self.run_opts
        name, cfg_path = state["name"], f"{WORK_DIR}/{state['name']}.cfg"
        soft = cpu_list(opts.soft_affinity) if opts.soft_affinity else "-"
        # the domain an earlier send of these same commands made is destroyed first: a send whose ssh
        # master closed may have run although it never said it started, and the executor sends it again
        commands = [["sh", "-c", 'cat > "$1"', "put", cfg_path], ["sh", "-c", DESTROY_IF_THERE, "destroy", name],
                    ["rm", "-f", state["log"]],
                    ["xl", "create", "-p", cfg_path]]
        commands += pin_commands(name, guest.cpus, soft)
        commands += self.pools.domain_commands(name, opts)
        commands += [["xl", "vcpu-list", name], ["xl", "list", name]]
        if not paused:
            commands.append(["xl", "unpause", name])
        started = time.monotonic()
        try:
            results = self.host.executor.run_many(commands, input=state["config"].encode(), timeout=180)
        except TransportError as err:  # outcome unknown: once more (it destroys what the first made)
            self._note_transport_failure(f"creating {name}: {err}")
            started = time.monotonic()
            results = self.host.executor.run_many(commands, input=state["config"].encode(), timeout=180)
        start_s = time.monotonic() - started
        running_ns = None if paused else time.monotonic_ns()
        state["created_ns"] = time.monotonic_ns()
        failed = [r for r in results if not r.ok]
        if failed:
            r = failed[0]
            raise InfrastructureError(f"{' '.join(r.argv)} failed (status {r.returncode}): "
                                      f"{' | '.join(r.stdout.strip().splitlines()[-6:])}")
        state["console"].attach(self.host.executor, state["log"])
        by_cmd = {tuple(r.argv[:2]): r for r in results}
        vcpus = parse_vcpu_list(by_cmd[("xl", "vcpu-list")].stdout)
        if problem := affinity_problem(name, guest.cpus, vcpus):
            raise InfrastructureError(problem)
        domid = parse_xl_list(by_cmd[("xl", "list")].stdout).get(name, {}).get("id")
        sched = next((r.stdout.strip() for r in results if r.argv == self.pools.readback(name)), None)
        self.run_meta["vcpu_list"] += vcpus
        facts = {"domain": name, "domid": domid, "start_s": round(start_s, 3), "running_host_ns": running_ns,
                 "affinity": list(guest.cpus), "vcpus": vcpus, "pool": self.run_meta.get("pool"),
                 "scheduler": self.pools.scheduler, "sched_params": sched, "config": state["config"]}
        handle.facts.update(facts)
        self.run_meta["domains"][guest.name] = facts

    def pause(self, handle: GuestHandle) -> None:
        self._wait_created(handle)
        self._set_paused(handle.backend_state["name"], True)

    def resume(self, handle: GuestHandle) -> None:
        self._wait_created(handle)
        self._set_paused(handle.backend_state["name"], False)
        self.run_meta.setdefault("unpaused_host_ns", {}).setdefault(handle.plan.name, []).append(
            time.monotonic_ns())

    def _set_paused(self, name: str, paused: bool) -> None:
        """xl pause/unpause, made safe to repeat: Xen counts pauses (two pauses need two
        unpauses), and a command whose connection dropped may have run although ssh never
        said it started (the master closed before its output came back). So dom0 pauses only
        a domain not paused and unpauses only a paused one (the p flag of `xl list`)."""
        verb = "pause" if paused else "unpause"
        done = self.host.run(["sh", "-c", SET_PAUSED, "set-paused", verb, name])  # retried once if the link drops
        if done.returncode != 0:
            raise InfrastructureError(f"xl {verb} {name} failed (status {done.returncode}): "
                                      f"{tail(done.stderr or done.stdout, 6)}")

    def poll_exit(self, handle: GuestHandle) -> int | None:
        state = handle.backend_state
        for other in self.domains.values():  # a neighbour created in the background that failed
            if other.get("error") is not None and not other.get("reported"):
                other["reported"] = True
                raise InfrastructureError(f"{other['name']}: creating the domain failed: {other['error']}")
        if self.watcher is not None:
            self.guard.silent(self.watcher.answered_s, self.watcher.asked)
        if state.get("thread") is not None and state["thread"].is_alive():
            return None
        if state.get("error") is not None:
            return 1
        if state["exit"] is not None or state["stopped"]:
            return state["exit"] if state["exit"] is not None else -9
        watcher = self.watcher
        if watcher is None or watcher.taken_ns < state.get("created_ns", 1 << 62):
            return None
        dom = watcher.listing.get(state["name"])
        if dom is None:
            code = 137  # gone: destroyed behind our back
        elif "c" in dom["state"]:
            code = 1    # crashed
        elif "s" in dom["state"]:
            code = 0    # shut down (poweroff): XT END says how the run went
        else:
            return None
        if state["console"] is not None:
            state["console"].wait_for(self.host.file_size(state["log"]), CATCH_UP_S)
        state["exit"] = code
        return code

    def vitals(self, handle: GuestHandle, fresh: bool = False) -> Vitals | None:
        """From the watcher's latest `xl list` (no round trip of its own; `fresh` pokes it):
        the domain's CPU time, paused (p) = stopped, blocked (b) = sleeping."""
        state, watcher = handle.backend_state, self.watcher
        if watcher is None or state["stopped"] or state["exit"] is not None:
            return None
        if fresh:
            watcher.poke()
        taken_ns, listing = watcher.latest
        dom = listing.get(state["name"])
        if taken_ns < state.get("created_ns", 1 << 62) or dom is None or dom["time_s"] is None:
            return None
        flags = dom["state"]
        if set(flags) & set("scd"):  # shut down, crashed, dying: poll_exit tells
            return None
        kind = "stopped" if "p" in flags else "sleeping" if "b" in flags else "running"
        return Vitals(taken_ns, dom["time_s"], kind, quantum_s=0.1)

    def stop(self, handle: GuestHandle) -> None:
        state = handle.backend_state
        if state.get("stopped"):
            return
        state["stopped"] = True
        if not self.guard.reachable():  # dom0 is lost: each command would wait out its deadline
            if state.get("console") is not None:
                state["console"].close()
            return
        self._wait_created(handle, raise_error=False)
        if handle.plan.vcpus > 1 and "created_ns" in state:
            self._vcpus_at_stop(handle)
        try:
            self.host.xl("destroy", state["name"], check=False, timeout=60)
        except Exception:  # noqa: BLE001 - stop must not raise; cleanup sweeps again
            pass
        console = state.get("console")
        try:
            if console is not None and console.thread is not None:
                console.wait_for(self.host.file_size(state["log"]), CATCH_UP_S)
            if self.run_dir is not None:
                text = self.host.run(["cat", state["log"]], timeout=60)
                if text.ok:
                    (self.run_dir / f"xen-console-{handle.plan.name}.log").write_text(text.stdout)
        except Exception:  # noqa: BLE001
            pass
        finally:
            if console is not None:
                console.close()
                if console.failures:  # followers that dropped and were started again
                    self.run_meta["domains"].get(handle.plan.name, {})["console_failures"] = console.failures

    def _vcpus_at_stop(self, handle: GuestHandle) -> None:
        """A guest with several vCPUs: `xl vcpu-list` before the destroy, kept as vcpus_at_stop:
        each vCPU's CPU time and the pCPU it last ran on (at creation the secondaries are
        still down, CPU "-"), so the run says that every vCPU ran, and where."""
        try:
            rows = parse_vcpu_list(self.host.xl("vcpu-list", handle.backend_state["name"], check=False,
                                                timeout=60).stdout)
        except Exception:  # noqa: BLE001 - a fact, not a reason to keep the domain
            return
        if rows:
            handle.facts["vcpus_at_stop"] = rows
            self.run_meta["domains"].setdefault(handle.plan.name, {})["vcpus_at_stop"] = rows

    def cleanup(self, run: RunPlan) -> None:
        if self.watcher is not None:
            self.watcher.close()
            self.watcher = None
        if not self.guard.reachable():  # the next run's prepare checks dom0, and restarts it
            for state in self.domains.values():
                if state.get("console") is not None:
                    state["console"].close()
            return
        try:
            leftovers = self._sweep(f"{self.token}-")
            if leftovers:
                self.run_meta["leftovers_destroyed"] = leftovers
            for state in self.domains.values():
                if state.get("console") is not None:
                    state["console"].close()
                    state["console"].close_read()
                self.host.executor.run(["rm", "-f", f"{WORK_DIR}/{state['name']}.cfg"], repeatable=True)
            self.pools.teardown()
            self.run_meta["dmesg_tail"] = self.host.xl("dmesg", check=False).stdout.splitlines()[-40:]
            self.run_meta["cpupools"] = self.host.xl("cpupool-list", "-c", check=False).stdout.strip()
            retries = getattr(self.host.executor, "retries", [])
            if retries:  # ssh connections that failed before their command ran, retried
                self.run_meta["ssh_retries"] = retries[:]
                retries.clear()
        except Exception as err:  # noqa: BLE001 - recorded; the runner goes on
            self.run_meta["cleanup_error"] = str(err)

    def metadata(self) -> dict:
        h = self.host
        return {
            "backend": self.name, "arch": h.arch, "executor": h.executor.describe(), "lab": h.lab_state,
            "swept_at_start": self.swept,
            "xen_version": h.xen_version, "xen_scheduler": h.info.get("xen_scheduler"),
            "schedulers_available": h.schedulers, "schedulers_source": h.sched_source,
            "xl_info": h.info, "nr_cpus": h.nr_cpus, "tsc_hz_from_dmesg": h.tsc_hz,
            "options": json.loads(self.run_opts.model_dump_json()),
            **self.image.info, **self.run_meta,
        }
