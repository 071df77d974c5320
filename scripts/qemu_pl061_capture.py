#!/usr/bin/env python3
"""A capture program for xtalk's program instrument (docs/instruments.md) that reads
QEMU's PL061 trace: run QEMU with `-trace pl061_set_output -D FILE` and this with FILE
(and the output line, default 0), and every change of that line's level is an edge of
channel `pin`, in ticks of 1 us on the host's CLOCK_MONOTONIC (an `origin_ns` line):
the emulated board's pin, watched from outside the guest, as a logic analyser would.

QEMU's log backend stamps each trace line with gettimeofday to the microsecond
(`pid@seconds.micro:`): the stamp is moved to CLOCK_MONOTONIC by the two clocks' offset
taken at start (a clock step during the run would shift the edges after it). A new QEMU
(each run) writes the file anew, told by its first line (QEMU's pid and time): the level
is then 0, and the lines QEMU writes at its device reset (level 0) are no edges; what an
earlier QEMU left in the file when this starts is skipped. Ends on SIGINT or SIGTERM, after a last read.
No xtalk import: it runs as any capture program would.
"""
import os
import re
import signal
import sys
import time


def first_line(path: str) -> bytes:
    try:
        with open(path, "rb") as trace:
            return trace.readline()
    except FileNotFoundError:
        return b""


def main() -> None:
    path, line = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "0"
    stop: list[int] = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.append(1))
    offset_ns = time.time_ns() - time.monotonic_ns()
    origin = time.monotonic_ns()
    print("origin_ns", origin, flush=True)
    change = re.compile(rb"@(\d+)\.(\d{6}):pl061_set_output \S+ setting output " + line.encode() + rb" to ([01])")
    at, first, level = 0, first_line(path), b"0"
    if first:  # what an earlier QEMU left there: not this capture's
        at = os.path.getsize(path)
    while True:
        last = bool(stop)
        try:
            with open(path, "rb") as trace:
                now = trace.readline()
                if now != first:  # a new QEMU's file (its first line holds its pid and time)
                    at, first, level = 0, now, b"0"
                trace.seek(at)
                text = trace.read()
        except FileNotFoundError:
            text = b""
        text = text[:text.rfind(b"\n") + 1]  # whole lines only: the rest on the next read
        at += len(text)
        for seconds, micros, new in change.findall(text):
            if new != level:
                level = new
                tick = (int(seconds) * 10**9 + int(micros) * 1000 - offset_ns - origin) // 1000
                print("pin", tick, "rising" if new == b"1" else "falling")
        sys.stdout.flush()
        if last:
            return
        time.sleep(0.05)


if __name__ == "__main__":
    main()
