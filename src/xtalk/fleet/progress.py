"""The whole fleet on one screen: per board its state (the run it is on and how far:
starting, booting, N s of the run's duration; a power cycle; a restart; done; down or
suspect and why), runs
done and failed, and the campaign's total with the time elapsed and an ETA (the mean
wall time of a finished run times the runs left, over the boards still up).
On a terminal a rich Live table redraws; otherwise one line per finished run (and one
per board restarted, set aside as down or suspect). Board threads report through the methods; the lock keeps
the counts consistent. A long state (a down board's reason) is cut to STATE_WIDTH in
the table; the line printed above it has it whole.
"""
from __future__ import annotations

import threading
import time

from rich.console import Console
from rich.live import Live
from rich.table import Table


STATE_WIDTH = 60


def span(seconds: float) -> str:
    """'42 s', '3 min 05 s', '2 h 07 min'."""
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


class FleetProgress:
    def __init__(self, console: Console, name: str, boards: list[str], total: int, done: int, duration_s: float):
        self.console, self.name, self.total, self.done = console, name, total, done
        self.duration_s = duration_s
        self.rows = {b: {"state": "idle", "done": 0, "failed": 0} for b in boards}
        self.walls: list[float] = []
        self.out: set[str] = set()  # the boards that are down or suspect
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

    def running(self, board: str, run_id: str, t_s: float | str | None) -> None:
        """A run's state: a phase ('starting'), None while its measurer has not begun, or
        its time into the run."""
        how = "booting" if t_s is None else t_s if isinstance(t_s, str) else f"{t_s:.1f} of {self.duration_s:g} s"
        self.state(board, f"{run_id} · {how}")

    def finished(self, board: str, run_id: str, meta: dict, wall_s: float) -> None:
        status = meta.get("status", "?")
        with self.lock:
            row = self.rows[board]
            row["done"] += 1
            row["failed"] += status not in ("pass", "degraded", "interrupted")  # interrupted: --resume redoes it
            row["state"] = "idle"
            self.done += 1
            self.walls.append(wall_s)
        mark = {"pass": "ok", "fail": "FAILED"}.get(status, status.upper())
        line = f"{board:<12} {run_id:<40} {mark:<8} {meta.get('sample_count') or 0:>8} samples {wall_s:6.1f}s"
        if meta.get("reason"):
            line += f"  ({meta['reason']})"
        self.console.print(line, highlight=False, markup=False)

    def restarted(self, board: str) -> None:
        """The board stopped answering and was power-cycled: it takes runs again."""
        self.state(board, "idle")
        self.console.print(f"{board:<12} RESTARTED: it stopped answering, was power-cycled and takes runs again",
                           highlight=False, markup=False)

    def down(self, board: str, state: str, reason: str) -> None:
        """The board is out of the campaign: `state` says how (DOWN, SUSPECT)."""
        self.state(board, f"{state}: {reason.removeprefix(f'board {board} ')}")
        with self.lock:
            self.out.add(board)
        self.console.print(f"{board:<12} {state}: no more runs on this board", highlight=False, markup=False)

    def eta_s(self) -> float | None:
        up = len(self.rows) - len(self.out)
        if not self.walls or not up or self.done >= self.total:
            return None
        return sum(self.walls) / len(self.walls) * (self.total - self.done) / up

    def table(self) -> Table:
        with self.lock:
            eta = self.eta_s()
            elapsed = time.monotonic() - self.started
            table = Table(title=f"{self.name}: {self.done}/{self.total} runs, {span(elapsed)}"
                                + (f", ETA {span(eta)}" if eta is not None else ""), title_justify="left")
            table.add_column("board")
            table.add_column("state", max_width=STATE_WIDTH, no_wrap=True, overflow="ellipsis")
            table.add_column("runs", justify="right")
            table.add_column("failed", justify="right")
            for board, row in self.rows.items():
                table.add_row(board, row["state"], str(row["done"]), str(row["failed"]))
        return table
