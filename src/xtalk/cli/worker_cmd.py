"""`xtalk worker`: run one run of a campaign here, for a fleet (the run: fleet/worker.py).
Not a command for people: its caller (xtalk run --fleet, over ssh on a board or locally
for a Xen dom0 board) speaks to it on its standard streams.

stdin: one JSON line, the job (fleet/worker.py says its keys); then nothing until the
caller goes away: EOF stops the run like SIGTERM (its guests stopped, the run stored as
interrupted).
stderr: `@@xtalk t_s=SECONDS` progress lines (`t_s=-` while the measurer has not begun),
and `xtalk: error: ...` on a failure.
stdout: the run directory as an uncompressed tar stream once the run is stored (also an
interrupted or errored run); nothing when the job could not start.
Exit: 0 the run was stored (whatever its status), 130 interrupted, 2 or 3 an error.
"""
from __future__ import annotations

import os
import signal
import sys
import tarfile
import threading
import time
from pathlib import Path

from ..errors import EXIT_OK
from .common import GUESTS_STOPPED, add_command

PROGRESS_EVERY_S = 0.5
EXIT_INTERRUPTED = 130


ORDER = 150  # its place in `xtalk --help`


def add_parser(sub) -> None:
    p = add_command(sub, "worker", "run one run of a fleet campaign (started by `xtalk run --fleet`, not by people)",
                    ["xtalk worker < job.json > run.tar"],
                    more="It reads the job, one JSON line, on stdin; writes progress (@@xtalk t_s=SECONDS) on stderr "
                         "and the stored run as a tar stream on stdout; EOF on stdin stops the run like SIGTERM.")
    p.set_defaults(handler=run, interrupted=GUESTS_STOPPED)


def _stop_at_eof() -> None:
    """The caller went away (or asks to stop): take the SIGTERM path."""
    sys.stdin.read()
    os.kill(os.getpid(), signal.SIGTERM)


def _progress():
    last = [0.0]

    def tick(t_s):
        if time.monotonic() - last[0] >= PROGRESS_EVERY_S:
            last[0] = time.monotonic()
            print(f"@@xtalk t_s={'-' if t_s is None else f'{t_s:.1f}'}", file=sys.stderr, flush=True)
    return tick


def _send(path: Path) -> None:
    with tarfile.open(fileobj=sys.stdout.buffer, mode="w|") as tar:
        tar.add(path, arcname=".")
    sys.stdout.buffer.flush()


def run(args) -> int:
    from ..fleet.worker import read_job, run_job
    job = read_job(sys.stdin)

    watch_eof = threading.Thread(target=_stop_at_eof, daemon=True).start
    return EXIT_INTERRUPTED if run_job(job, _progress(), _send, watch_eof) else EXIT_OK
