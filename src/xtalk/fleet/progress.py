"""The whole fleet on one screen: per board its state (the run it is on and how far, a
power cycle, down and why), runs done and failed, and the campaign's total with an ETA
(the mean wall time of a finished run times the runs left, over the boards still up).
On a terminal a rich Live table redraws; otherwise one line per finished run.
Board threads report through the methods; the lock keeps the counts consistent.
"""
from __future__ import annotations

import threading
import time

from rich.console import Console
from rich.live import Live
from rich.table import Table


class FleetProgress:
    def __init__(self, console: Console, name: str, boards: list[str], total: int, done: int):
        self.console, self.name, self.total, self.done = console, name, total, done
        self.rows = {b: {"state": "idle", "done": 0, "failed": 0} for b in boards}
        self.walls: list[float] = []
        self.started = time.monotonic()
        self.lock = threading.Lock()
        self.live = Live(self.table(), console=console, refresh_per_second=4, transient=False,
                         get_renderable=self.table) if console.is_terminal else None

    def __enter__(self) -> "FleetProgress":
        if self.live:
            self.live.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if self.live:
            self.live.__exit__(*exc)

    def state(self, board: str, text: str) -> None:
        with self.lock:
            self.rows[board]["state"] = text

    def finished(self, board: str, run_id: str, meta: dict, wall_s: float) -> None:
        status = meta.get("status", "?")
        with self.lock:
            row = self.rows[board]
            row["done"] += 1
            row["failed"] += status not in ("pass", "degraded")
            row["state"] = "idle"
            self.done += 1
            self.walls.append(wall_s)
        mark = {"pass": "ok", "fail": "FAILED"}.get(status, status.upper())
        line = f"{board:<12} {run_id:<40} {mark:<8} {meta.get('sample_count') or 0:>8} samples {wall_s:6.1f}s"
        if meta.get("reason"):
            line += f"  ({meta['reason']})"
        self.console.print(line, highlight=False, markup=False)

    def down(self, board: str, reason: str) -> None:
        self.state(board, f"DOWN: {reason}")
        self.console.print(f"{board:<12} down: {reason}", highlight=False, markup=False)

    def eta_s(self) -> float | None:
        up = sum(not r["state"].startswith("DOWN") for r in self.rows.values())
        if not self.walls or not up:
            return None
        return sum(self.walls) / len(self.walls) * (self.total - self.done) / up

    def table(self) -> Table:
        with self.lock:
            eta = self.eta_s()
            elapsed = time.monotonic() - self.started
            table = Table(title=f"{self.name}: {self.done}/{self.total} runs, {elapsed:.0f} s"
                                + (f", ETA {eta:.0f} s" if eta is not None else ""), title_justify="left")
            for col in ("board", "state", "runs", "failed"):
                table.add_column(col)
            for board, row in self.rows.items():
                table.add_row(board, row["state"], str(row["done"]), str(row["failed"]))
        return table
