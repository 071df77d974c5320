"""The lease guard: a small process that outlives a SIGKILLed xtalk to give its boards back.

`python -m xtalk.fleet.guard ADDRESS` is started (in its own session, so Ctrl-C does not
reach it) before xtalk reserves anything; xtalk tells it on stdin each place it acquires
(`place NAME`) and each reservation token (`token TOKEN`), and `released` once it gave them
back itself. When stdin ends without `released` (xtalk died, SIGKILL included) the guard
releases those places, if still held by the same HOST/USER, and cancels the reservations.
labgrid itself expires a reservation 60 s after its last poll unless its place is
acquired, and never expires an acquired place: without the guard a SIGKILLed xtalk would
hold its boards until `labgrid-client -p PLACE release --kick`.
"""
from __future__ import annotations

import sys
import time

from ..errors import InfrastructureError
from ..remote.coordinator import Coordinator

RETRY_S = 60.0


def main(address: str) -> int:
    places, tokens = [], []
    for line in sys.stdin:
        word, _, value = line.strip().partition(" ")
        if word == "released":
            return 0
        (places if word == "place" else tokens).append(value)
    end = time.monotonic() + RETRY_S
    while True:
        try:
            with Coordinator(address) as lab:
                problems = lab.release(places, tokens)
            break
        except InfrastructureError as err:
            if time.monotonic() > end:
                problems = [str(err)]
                break
            time.sleep(1.0)
    for problem in problems:
        print(f"xtalk lease guard: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
