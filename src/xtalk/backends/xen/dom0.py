"""Stressors in dom0 (`host = true` with the xen backend): seed 002's set-up, stress-ng in
the management domain while a domU measures. xtalk's POSIX suite program (xtalk-rt,
static, uploaded to dom0 like the domU images) runs the stressor's bench there, as with
a Linux-RT domU: `stress_ng` runs Debian's stress-ng, which dom0 must have (the lab's has).

Placement: a host stressor's CPUs are pCPUs (the placement's). Each gets a dom0 vCPU:
one Xen pins to that pCPU alone (dom0_vcpus_pin), else an offline one, pinned there for
the run (`xl vcpu-pin Domain-0`); an offline vCPU is brought online in dom0 (sysfs).
Both are undone at cleanup. The program is bound to those vCPUs with taskset.

Lifecycle, all through the xen backend's executor (local or ssh): started with setsid (a
session and process group of its own, output to <DIR>/<name>.log, followed like a
domain's console), held stopped until its timeline start when asked; pause, resume and
stop are SIGSTOP, SIGCONT and SIGKILL to its process group (stop waits until the group
is gone); the exit status is the file its shell writes. A thread reads every group's CPU
time and state from /proc every POLL_S (vitals, poll_exit). Groups a killed xtalk left
(pid files under DIR) are killed when the next campaign first starts a dom0 stressor.
Caveats: CPU time is in clock ticks (USER_HZ 100): 10 ms resolution; the stressor's
vCPU is also open to dom0's other tasks (sshd, xl) while it is online.
"""
from __future__ import annotations

import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ... import parsers
from ...images import artifacts
from ...errors import InfrastructureError
from ...spec.plan import GuestPlan, RunPlan
from ..base import Backend, GuestHandle, Vitals, workload_args
from .console import DomainWatcher, GuestConsole
from .images import upload
from .metadata import Dom0GuestFacts, Dom0Metadata
from .xl import cpu_list, expand_cpus, parse_vcpu_list

if TYPE_CHECKING:
    from .host import XenHost

DIR = "/run/xtalk/dom0"
DOM0 = "Domain-0"
TICK_S = 0.01  # USER_HZ
CATCH_UP_S = 8.0

# The remote scripts are one line each (the executors refuse control characters in an
# argument); their arguments come after them as argv, never as script text.
# argv: DIR NAME HELD CMD...; prints the process group id. Held: the group's shell stops
# itself before it runs CMD, and the launcher returns once it is stopped. A stressor
# started again (timeline stop, then start) starts with a fresh log and no exit status.
LAUNCH = ('dir=$1 name=$2 held=$3; shift 3; mkdir -p "$dir"; rm -f "$dir/$name.rc"; : > "$dir/$name.log"; '
          'setsid sh -c \'[ "$1" = 1 ] && kill -s STOP $$; shift; "$@"; echo $? > "$0.rc"\' '
          '"$dir/$name" "$held" "$@" </dev/null >>"$dir/$name.log" 2>&1 & '
          'pg=$!; echo "$pg" > "$dir/$name.pgid"; i=0; '
          'while [ "$held" = 1 ] && [ $i -lt 100 ]; do '
          'read -r _ _ st _ < "/proc/$pg/stat" && [ "$st" = T ] && break; sleep 0.05; i=$((i+1)); done; '
          'echo "$pg"')
# "pg PGID TICKS STATES" per live group of the arguments (zombies left out), by awk over
# /proc/*/stat (after the command name: state $1, pgrp $3, utime $12, stime $13)
GROUPS = ('cat /proc/[0-9]*/stat 2>/dev/null | awk -v want="$*" \''
          'BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) keep[w[i]] = 1 } '
          '{ sub(/^[0-9]+ \\(.*\\) /, ""); if (($3 in keep) && $1 != "Z") { t[$3] += $12 + $13; s[$3] = s[$3] $1 } } '
          'END { for (g in t) print "pg", g, t[g], s[g] }\'')
# argv: DIR PGID...: the live groups, then "rc NAME.rc STATUS" of every exit status written
# (read after /proc: a group seen gone has written its status, unless it was killed)
STATUS = ('dir=$1; shift; ' + GROUPS + '; '
          'for f in "$dir"/*.rc; do [ -f "$f" ] && echo "rc ${f##*/} $(cat "$f")"; done; true')
# argv: SIG PGID (busybox's kill takes no "--", dash's no negative pid without it)
SIGNAL = 'kill -s "$1" "-$2" 2>/dev/null || kill -s "$1" -- "-$2" 2>/dev/null; true'
# argv: PGID LOG: SIGKILL the group, wait until none of it is left, print LOG's size
KILL = ('kill -s KILL "-$1" 2>/dev/null || kill -s KILL -- "-$1" 2>/dev/null; i=0; '
        'while [ $i -lt 100 ]; do left=$(' + GROUPS.replace('"$*"', '"$1"') + '); '
        '[ -z "$left" ] && exec stat -c %s "$2"; sleep 0.1; i=$((i+1)); done; '
        'echo "process group $1 outlived SIGKILL: $left"; exit 1')
# argv: DIR PREFIX: kill the groups whose pid file starts with PREFIX (their shell's
# command line names the file: a recycled pid is left alone); print their names
SWEEP = ('for f in "$1/$2"-*.pgid; do [ -f "$f" ] || continue; n=${f##*/}; n=${n%.pgid}; pg=$(cat "$f"); '
         'if grep -q "$n" "/proc/$pg/cmdline" 2>/dev/null; then '
         'kill -s KILL "-$pg" 2>/dev/null || kill -s KILL -- "-$pg"; echo "$n"; fi; rm -f "$1/$n".*; done; true')
ONLINE = 'echo "$2" > "/sys/devices/system/cpu/cpu$1/online"'


def parse_status(text: str) -> dict:
    """STATUS's output -> {"groups": {pgid: (ticks, states)}, "rc": {name: status}}."""
    groups, rcs = {}, {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[0] == "pg" and parts[1].isdigit():
            groups[int(parts[1])] = (int(parts[2]), parts[3])
        elif len(parts) == 3 and parts[0] == "rc" and re.fullmatch(r"-?\d+", parts[2]):
            rcs[parts[1].removesuffix(".rc")] = int(parts[2])
    return {"groups": groups, "rc": rcs}


def group_state(states: str) -> str:
    return "stopped" if set(states) & set("Tt") else "running" if "R" in states else "sleeping"


def offline(row: dict) -> bool:
    return row["state"].endswith("p")  # xl vcpu-list: state "--p", CPU "-" when down


def choose_vcpus(rows: list[dict], pcpus: list[int]) -> dict[int, int]:
    """A dom0 vCPU per pCPU (pure): one pinned to it alone (online first), else an offline
    one not pinned alone to another of pcpus (unpinned first); InfrastructureError when
    none is left."""
    def alone(row: dict) -> int | None:
        cpus = expand_cpus(row["hard_affinity"])
        return next(iter(cpus)) if cpus is not None and len(cpus) == 1 else None

    chosen: dict[int, int] = {}
    for p in pcpus:
        free = [r for r in rows if r["vcpu"] not in chosen.values()]
        mine = sorted((r for r in free if alone(r) == p), key=offline)
        spare = sorted((r for r in free if offline(r) and alone(r) not in pcpus), key=lambda r: alone(r) is not None)
        if not (mine or spare):
            raise InfrastructureError(
                f"dom0 has no vCPU for a stressor on pCPU {p}: none is pinned there and none is offline to pin "
                f"there (boot Xen with dom0_max_vcpus=<pCPUs> dom0_vcpus_pin; the lab does)")
        chosen[p] = (mine or spare)[0]["vcpu"]
    return chosen


class Dom0Stressors(Backend):
    """The xen backend's host_backend(): its host stressors, as process groups in dom0."""

    name = "xen-dom0"
    Metadata = Dom0Metadata
    GuestFacts = Dom0GuestFacts
    measures_local_cpus = False

    @classmethod
    def accepts(cls, host: dict) -> tuple[bool, str]:
        return True, ""

    def __init__(self, host: XenHost, name_prefix: str, run_token: Callable[[], str],
                 reachable: Callable[[], bool]):
        """The stressors of the dom0 that `host` reaches; their names start with the current
        run's token (`run_token()`), and a name_prefix marks what earlier xtalks left."""
        super().__init__({})
        self.host = host
        self.name_prefix = name_prefix
        self.run_token = run_token
        self.reachable = reachable  # False once the run lost dom0 (target.py): no command is sent then
        self.program: str | None = None
        self.local: tuple[Path, str] | None = None
        self.stress_ng: str | None = None
        self.swept: list[str] | None = None
        self.watcher: DomainWatcher | None = None
        self.handles: list[GuestHandle] = []
        self.vcpus: dict[int, int] = {}  # pCPU -> the dom0 vCPU on it, this run
        self.undo: list[list] = []
        self.run_meta: dict = {}

    def _run(self, argv: list, retry: bool = True):
        return self.host.run(argv, retry=retry)

    # -- per run ------------------------------------------------------------------
    def prepare(self, run: RunPlan, run_dir: Path) -> None:
        self.handles, self.undo, self.run_meta = [], [], {}
        if self.swept is None:  # once per campaign: what a killed xtalk left
            self.swept = self._run(["sh", "-c", SWEEP, "sweep", DIR, self.name_prefix]).check().stdout.split()
        if self.local is None:
            arch = self.host.arch
            path = artifacts.build(f"posix-{arch}", f"build/posix/{arch}/xtalk-rt")
            self.local = (path, artifacts.file_hash(path))
        self.program = upload(self.host.executor, self._run, *self.local)
        self._run(["chmod", "755", self.program]).check()
        if self.stress_ng is None:
            version = self._run(["stress-ng", "--version"])
            self.stress_ng = version.stdout.strip() if version.ok else f"not found ({version.stderr.strip()[-200:]})"
        self.vcpus = self._place(sorted({c for g in run.guests if g.host for c in g.cpus}))
        self.watcher = DomainWatcher(self.host.executor, self._status_argv, parse_status)

    def _place(self, pcpus: list[int]) -> dict[int, int]:
        """dom0 vCPU per pCPU, brought online and pinned as needed (undone at cleanup)."""
        rows = parse_vcpu_list(self.host.xl("vcpu-list", DOM0).stdout)
        chosen = choose_vcpus(rows, pcpus)
        by_vcpu, changes = {r["vcpu"]: r for r in rows}, []
        for p, v in chosen.items():
            if expand_cpus(by_vcpu[v]["hard_affinity"]) != {p}:
                self.host.xl("vcpu-pin", DOM0, str(v), str(p))
                self.undo.append(["xl", "vcpu-pin", DOM0, str(v), by_vcpu[v]["hard_affinity"]])
                changes.append(f"vCPU {v} pinned to pCPU {p} (was {by_vcpu[v]['hard_affinity']})")
            if offline(by_vcpu[v]):
                self._run(["sh", "-c", ONLINE, "online", str(v), "1"]).check()
                self.undo.insert(0, ["sh", "-c", ONLINE, "online", str(v), "0"])  # offline before re-pinning
                changes.append(f"vCPU {v} brought online")
        after = [r for r in parse_vcpu_list(self.host.xl("vcpu-list", DOM0).stdout) if r["vcpu"] in chosen.values()]
        for r in after:
            p = next(p for p, v in chosen.items() if v == r["vcpu"])
            if offline(r) or expand_cpus(r["hard_affinity"]) != {p}:
                raise InfrastructureError(f"dom0 vCPU {r['vcpu']} is not online on pCPU {p} alone: {r}")
        self.run_meta |= {"dom0_vcpus": {str(p): v for p, v in chosen.items()}, "dom0_vcpu_list": after,
                          "dom0_vcpu_changes": changes}
        return chosen

    def _status_argv(self) -> list | None:
        live = [str(h.backend_state["pgid"]) for h in self.handles if not h.backend_state["stopped"]]
        return ["sh", "-c", STATUS, "status", DIR, *live] if live else None

    def start(self, guest: GuestPlan, run: RunPlan, paused: bool = False) -> GuestHandle:
        name = f"{self.run_token()}-{guest.name}"
        vcpus = [self.vcpus[c] for c in guest.cpus]
        argv = ["taskset", "-c", cpu_list(vcpus), self.program, *workload_args(guest, run), "platform=xen-dom0"]
        # not retried: a launch cut mid-way may have started it (the cleanup sweep kills it then)
        launched = self._run(["sh", "-c", LAUNCH, "launch", DIR, name, "1" if paused else "0", *argv],
                             retry=False).check()
        pgid = int(launched.stdout.split()[-1])
        state = {"name": name, "pgid": pgid, "log": f"{DIR}/{name}.log", "console": GuestConsole(),
                 "stopped": False, "exit": None}
        state["console"].attach(self.host.executor, state["log"])
        handle = GuestHandle(guest, console_fd=state["console"].read_fd, backend_state=state)
        handle.facts = {"where": "dom0", "dom0_vcpus": vcpus, "pcpus": list(guest.cpus), "argv": argv,
                        "pgid": pgid, "log": state["log"], "stress_ng_version": self.stress_ng}
        self.handles.append(handle)
        state["started_ns"] = time.monotonic_ns()  # a listing asked for from now on has its group
        if self.watcher is not None:
            self.watcher.poke()
        return handle

    def _signal(self, handle: GuestHandle, sig: str) -> None:
        self._run(["sh", "-c", SIGNAL, "signal", sig, str(handle.backend_state["pgid"])]).check()

    def pause(self, handle: GuestHandle) -> None:
        self._signal(handle, "STOP")

    def resume(self, handle: GuestHandle) -> None:
        self._signal(handle, "CONT")

    def _reading(self, state: dict) -> tuple[int, dict] | None:
        """The watcher's latest listing, if taken after the stressor started."""
        if self.watcher is None or self.watcher.taken_ns < state["started_ns"]:
            return None
        return self.watcher.latest

    def poll_exit(self, handle: GuestHandle) -> int | None:
        state = handle.backend_state
        if state["exit"] is not None or state["stopped"]:
            return state["exit"] if state["exit"] is not None else -9
        reading = self._reading(state)
        if reading is None or state["pgid"] in reading[1]["groups"]:
            return None
        state["console"].wait_for(self.host.file_size(state["log"]), CATCH_UP_S)
        state["exit"] = reading[1]["rc"].get(state["name"], 137)  # no status written: killed
        return state["exit"]

    def vitals(self, handle: GuestHandle, fresh: bool = False) -> Vitals | None:
        state = handle.backend_state
        if fresh and self.watcher is not None:
            self.watcher.poke()
        reading = self._reading(state)
        if state["stopped"] or state["exit"] is not None or reading is None:
            return None
        group = reading[1]["groups"].get(state["pgid"])
        if group is None:
            return None
        return Vitals(reading[0], group[0] * TICK_S, group_state(group[1]), quantum_s=TICK_S)

    def stop(self, handle: GuestHandle) -> None:
        state = handle.backend_state
        if state["stopped"]:
            return
        state["stopped"] = True
        if not self.reachable():
            state["console"].close()
            return
        try:
            killed = self._run(["sh", "-c", KILL, "kill", str(state["pgid"]), state["log"]])
            if killed.ok and killed.stdout.strip().isdigit():
                state["console"].wait_for(int(killed.stdout), CATCH_UP_S)
            else:
                handle.facts["stop_error"] = (killed.stdout + killed.stderr).strip()
        except Exception as err:  # noqa: BLE001 - stop must not raise; cleanup sweeps again
            handle.facts["stop_error"] = str(err)
        finally:
            state["console"].close()

    def cleanup(self, run: RunPlan) -> None:
        if self.watcher is not None:
            self.watcher.close()
            self.watcher = None
        if not self.reachable():
            return
        try:
            for handle in self.handles:  # the command line it ran, as xtalk-rt said it (XT META cmd=)
                handle.backend_state["console"].close_read()
                log = self._run(["cat", handle.backend_state["log"]])
                handle.facts["cmd"] = parsers.parse_log(log.stdout).meta.get("cmd") if log.ok else None
            leftovers = self._run(["sh", "-c", SWEEP, "sweep", DIR, self.run_token()]).check().stdout.split()
            if leftovers:
                self.run_meta["leftovers_killed"] = leftovers
            for command in self.undo:
                self._run(command).check()
            self.run_meta["dom0_vcpu_list_after"] = parse_vcpu_list(self.host.xl("vcpu-list", DOM0).stdout)
        except Exception as err:  # noqa: BLE001 - recorded; the runner goes on
            self.run_meta["cleanup_error"] = str(err)

    def metadata(self) -> dict:
        return {"backend": self.name, "where": "dom0", "executor": self.host.executor.describe(),
                "program": str(self.local[0]) if self.local else None,
                "program_sha256": self.local[1] if self.local else None, "dom0_program": self.program,
                "stress_ng_version": self.stress_ng, "swept_at_start": self.swept, **self.run_meta}
