"""What else used the host's CPUs while a test that runs alone ran (conftest.py watches every
test marked timing, fifo or xen): per CPU the share of the wall time it was busy (the test's
own work included), the share the machine's own hypervisor took (/proc/stat's steal),
and the busiest processes still alive at the end that are not the worker (xtalk's
host/noise.py, the same watch a campaign keeps per run). A failure of such a test names
them (conftest.py adds `summary()` to its message), and every watch is one line of the
tier's record (known_answer.record), so a gate's log shows who shared the machine.
Caveats: a process that ran and ended inside the test is not named (its time is in the CPUs'
busy share); the worker's children (the test's own xtalk) are named when they outlive it;
/proc/stat is read here once more for steal beside host/noise.py's own reading of it.
"""
from __future__ import annotations

import os
import time
from pathlib import Path

from xtalk.host.noise import TICK, busiest, cpu_busy_ticks, process_ticks

STEAL_FIELD = 7  # /proc/stat: user nice system idle iowait irq softirq steal


def steal_ticks() -> dict[int, int]:
    """Per CPU, the ticks the machine's own hypervisor took from it (0 on bare metal)."""
    out = {}
    for line in Path("/proc/stat").read_text().splitlines():
        if line.startswith("cpu") and line[3].isdigit():
            name, *fields = line.split()
            out[int(name[3:])] = int(fields[STEAL_FIELD]) if len(fields) > STEAL_FIELD else 0
    return out


class OtherWork:
    """Started when the test starts; `finish` gives the record of what else ran."""

    def __init__(self) -> None:
        self.cpus = sorted(os.sched_getaffinity(0) | set(cpu_busy_ticks()))
        self.busy, self.steal, self.procs = cpu_busy_ticks(), steal_ticks(), process_ticks()
        self.started = time.monotonic()

    def finish(self) -> dict:
        wall = time.monotonic() - self.started
        busy, steal, procs = cpu_busy_ticks(), steal_ticks(), process_ticks()
        mine = (procs.get(os.getpid(), ("", 0))[1] - self.procs.get(os.getpid(), ("", 0))[1]) / TICK

        def pct(ticks: float) -> float:
            return round(100 * ticks / TICK / wall, 1) if wall > 0 else 0.0

        cpus = {str(c): {"busy_pct": pct(busy.get(c, 0) - self.busy.get(c, 0)),
                         "steal_pct": pct(steal.get(c, 0) - self.steal.get(c, 0))} for c in self.cpus}
        return {"wall_s": round(wall, 1), "worker_cpu_s": round(mine, 2), "cpus": cpus,
                "busiest": busiest(self.procs, procs, {os.getpid()}, self.cpus, wall)}


def summary(record: dict) -> str:
    """One line: the busiest processes outside the test, then each CPU's busy and stolen share."""
    who = ", ".join(f"PID {p['pid']} ({p['command']}, {p['pct']:g} % of a CPU)" for p in record["busiest"])
    cpus = "; ".join(f"CPU {c} busy {v['busy_pct']:g} %, {v['steal_pct']:g} % taken by the machine's own "
                     f"hypervisor" for c, v in record["cpus"].items())
    return (f"other work while it ran ({record['wall_s']:g} s): "
            f"{'busiest outside the test: ' + who if who else 'no process outside the test above 1 % of a CPU'}; "
            f"{cpus}")
