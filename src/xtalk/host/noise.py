"""Host noise accounting: CPU time spent on the measured CPUs by anything outside the run.

foreign time(cpu) = busy time of the cpu during the run (/proc/stat) minus the CPU time
of the run's own threads that are pinned to that cpu alone (/proc/<pid>/task/*/stat) and
of xtalk's own threads pinned there (host/pinning.py keeps them off the measured CPU; on a
2-CPU host they share the neighbour's: `xtalk_s`, not other work). Of the foreign time,
`steal_s` is what the machine's own hypervisor took (/proc/stat's steal column: a VM's
host running something else; no process here to name).
The busiest processes outside the run that may run on a measured CPU (their CPU time
over the run, /proc/<pid>/stat) name who the foreign time most likely was: what a user
stops or moves.
Caveats: jiffy resolution (10 ms at HZ=100, 4 ms at HZ=250); interrupts and softirqs
count as foreign; threads of the run that float over several CPUs are not subtracted; a
process allowed on several CPUs is named with all its time, wherever it ran.
"""
from __future__ import annotations

import os
import time
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")
NOISY_PCT = 5.0
BUSIEST = 3          # processes named per run
BUSIEST_MIN_PCT = 1  # of the run's wall time


STEAL_FIELD = 7      # /proc/stat: user nice system idle iowait irq softirq steal


def cpu_ticks() -> dict[int, tuple[int, int]]:
    """Per CPU, (busy ticks, of them stolen by the machine's own hypervisor)."""
    out = {}
    for line in Path("/proc/stat").read_text().splitlines():
        if line.startswith("cpu") and line[3].isdigit():
            name, *fields = line.split()
            values = list(map(int, fields))
            idle = values[3] + (values[4] if len(values) > 4 else 0)  # idle + iowait
            steal = values[STEAL_FIELD] if len(values) > STEAL_FIELD else 0
            out[int(name[3:])] = (sum(values[:8]) - idle, steal)  # guest time is inside user already
    return out


def cpu_busy_ticks() -> dict[int, int]:
    return {cpu: busy for cpu, (busy, _) in cpu_ticks().items()}


def _allowed_cpus(status: str) -> set[int]:
    for line in status.splitlines():
        if line.startswith("Cpus_allowed_list:"):
            cpus = set()
            for part in line.split(":", 1)[1].strip().split(","):
                lo, _, hi = part.partition("-")
                cpus.update(range(int(lo), int(hi or lo) + 1))
            return cpus
    return set()


def thread_ticks_by_cpu(pids: list[int]) -> dict[int, int]:
    """CPU ticks of each pid's threads that may run on exactly one CPU, keyed by that CPU."""
    out: dict[int, int] = {}
    for pid in pids:
        for task in Path(f"/proc/{pid}/task").glob("*"):
            try:
                stat = (task / "stat").read_text()
                allowed = _allowed_cpus((task / "status").read_text())
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if len(allowed) == 1:
                cpu = next(iter(allowed))
                out[cpu] = out.get(cpu, 0) + int(fields[11]) + int(fields[12])  # utime + stime
    return out


def process_ticks() -> dict[int, tuple[str, int]]:
    """pid -> (command name, utime + stime ticks) of every process now."""
    out = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        comm, fields = text[text.find("(") + 1:text.rfind(")")], text.rsplit(")", 1)[1].split()
        out[int(stat.parent.name)] = (comm, int(fields[11]) + int(fields[12]))
    return out


def busiest(before: dict[int, tuple[str, int]], after: dict[int, tuple[str, int]], ours: set[int],
            cpus: list[int], wall_s: float) -> list[dict]:
    """The BUSIEST processes not in `ours` that may run on one of `cpus`, by CPU time
    between the two snapshots: pid, command, CPU seconds and share of the wall time."""
    spent = sorted(((after[pid][1] - before.get(pid, (None, 0))[1], pid) for pid in after if pid not in ours),
                   reverse=True)
    out = []
    for ticks, pid in spent:
        pct = 100 * ticks / TICK / wall_s if wall_s > 0 else 0.0
        if pct < BUSIEST_MIN_PCT or len(out) == BUSIEST:
            break
        try:
            allowed = _allowed_cpus(Path(f"/proc/{pid}/status").read_text())
        except OSError:
            allowed = set(cpus)  # gone since: it may have run there
        if allowed & set(cpus):
            out.append({"pid": pid, "command": after[pid][0], "cpu_s": round(ticks / TICK, 2), "pct": round(pct, 1)})
    return out


class NoiseMeter:
    """Start at the beginning of a run; `sample` the run's processes regularly and right
    before any of them is stopped or reaped (their CPU time vanishes with them)."""

    SAMPLE_EVERY_S = 0.05

    def __init__(self, cpus: list[int]):
        self.cpus = cpus
        self.start_ticks = cpu_ticks()
        self.start_own = thread_ticks_by_cpu([os.getpid()])  # xtalk's own threads pinned to one CPU
        self.start_processes = process_ticks()
        self.start_wall = time.monotonic()
        self.latest: dict[int, dict[int, int]] = {}  # pid -> cpu -> ticks
        self._last_sample = 0.0

    def sample(self, pids: list[int], force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._last_sample < self.SAMPLE_EVERY_S:
            return
        self._last_sample = now
        for pid in pids:  # per CPU the most seen: threads vanish as a process exits (a zombie
            seen = self.latest.setdefault(pid, {})  # QEMU shows its main thread only)
            for cpu, ticks in thread_ticks_by_cpu([pid]).items():
                seen[cpu] = max(seen.get(cpu, 0), ticks)

    def finish(self) -> dict:
        stat, own = cpu_ticks(), thread_ticks_by_cpu([os.getpid()])
        wall = time.monotonic() - self.start_wall
        ours: dict[int, int] = {}
        for ticks in self.latest.values():
            for cpu, t in ticks.items():
                ours[cpu] = ours.get(cpu, 0) + t
        per_cpu = {}
        for cpu in self.cpus:
            (busy, steal), (busy0, steal0) = stat.get(cpu, (0, 0)), self.start_ticks.get(cpu, (0, 0))
            busy_s, steal_s = (busy - busy0) / TICK, (steal - steal0) / TICK
            ours_s = ours.get(cpu, 0) / TICK
            xtalk_s = max(own.get(cpu, 0) - self.start_own.get(cpu, 0), 0) / TICK
            foreign = min(max(busy_s - ours_s - xtalk_s, 0.0), wall)  # /proc/stat's ticks can overshoot the wall
            per_cpu[str(cpu)] = {"busy_s": round(busy_s, 3), "ours_s": round(ours_s, 3),
                                 "xtalk_s": round(xtalk_s, 3), "steal_s": round(min(steal_s, foreign), 3),
                                 "foreign_s": round(foreign, 3),
                                 "foreign_pct": round(100 * foreign / wall, 2) if wall > 0 else 0.0}
        noisy = [c for c, v in per_cpu.items() if v["foreign_pct"] > NOISY_PCT]
        top = busiest(self.start_processes, process_ticks(), set(self.latest) | {os.getpid()}, self.cpus, wall)
        return {"wall_s": round(wall, 3), "cpus": per_cpu, "noisy_cpus": noisy, "busiest": top,
                "threshold_pct": NOISY_PCT, "tick_s": 1 / TICK}


def quiet_check(cpus: list[int], seconds: float) -> dict:
    """A run's noise record for `seconds` in which xtalk runs nothing: all busy time on
    `cpus` is other work (`xtalk host check`)."""
    meter = NoiseMeter(cpus)
    time.sleep(seconds)
    return meter.finish()
