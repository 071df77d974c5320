"""Console splitting (parsers/screen.py ConsoleLines): goal <= 2 ms per MB of plain lines
(issue 46; it had gone from 1.7 to about 8 ms per MB with no benchmark watching it).

The console is fed as the runner reads it, in 64 KiB reads, and every line it completes
is taken. Three consoles of SIZE_MB each, made of the plain lines of a real Zephyr console
(../shared/zephyr-console's latency_measure log, its escapes left out), repeated:
  plain   lines ended by a newline: the goal's;
  serial  the same lines ended by CR LF, as a serial console sends them (information);
  screen  each line drawn at its row by cursor addressing (CSI row;1H), as full-screen
          programs do (information: it was about 0.5 s per MB).
Each is the best of REPEATS passes (ms per MB of console bytes). The lines are checked:
every console gives back the same lines.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

from benchmarks.common import report
from xtalk.parsers.screen import ConsoleLines

SIZE_MB = 4
READ = 1 << 16
REPEATS = 3
GOAL_MS_PER_MB = 2.0
SOURCE = Path(__file__).resolve().parent.parent.parent / "shared" / "zephyr-console" / "latency_measure-qemu_x86_64-tcg.log"
FALLBACK = [f"Average context switch time between threads (coop) : {i} cycles , {i * 40} ns :" for i in range(40)]


def source_lines() -> list[str]:
    """The plain lines of the real console (no escape, not blank), else lines of its form."""
    if not SOURCE.exists():
        print(f"  {SOURCE} missing: lines of its form instead", flush=True)
        return FALLBACK
    text = SOURCE.read_text(errors="replace")
    return [line.strip() for line in text.splitlines() if line.strip() and "\x1b" not in line] or FALLBACK


def consoles(lines: list[str]) -> dict[str, tuple[bytes, list[str]]]:
    """Each console's bytes (SIZE_MB) and the lines it holds."""
    per_mb = SIZE_MB * (1 << 20) // (sum(map(len, lines)) + len(lines))
    many = (lines * (per_mb // len(lines) + 1))[:per_mb]
    return {
        "plain": ("".join(f"{line}\n" for line in many).encode(), many),
        "serial": ("".join(f"{line}\r\n" for line in many).encode(), many),
        "screen": ("".join(f"\x1b[{i % 24 + 1};1H{line}" for i, line in enumerate(many)).encode() + b"\x1b[1;1H",
                   many),
    }


def split_ms_per_mb(data: bytes) -> tuple[float, list[str]]:
    """Best ms per MB of REPEATS passes feeding `data` READ bytes at a time, and the lines."""
    best, lines = float("inf"), []
    for _ in range(REPEATS):
        console, lines = ConsoleLines(), []
        start = time.perf_counter()
        for at in range(0, len(data), READ):
            lines += console.feed(data[at:at + READ])
        lines += console.flush()
        best = min(best, (time.perf_counter() - start) * 1000 / (len(data) / (1 << 20)))
    return best, lines


def main() -> int:
    ok = True
    for name, (data, want) in consoles(source_lines()).items():
        ms, lines = split_ms_per_mb(data)
        if lines != want:
            print(f"  {name}: {len(lines)} lines came out, {len(want)} went in: not the same lines", flush=True)
            ok = False
        if name == "plain":
            ok &= report("console_split_plain", ms, GOAL_MS_PER_MB, "ms per MB")
        else:
            print(f"  {name}: {ms:.3g} ms per MB (information)", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
