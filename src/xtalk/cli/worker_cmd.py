"""`xtalk worker`: run one run of a campaign here, for a fleet (src/xtalk/fleet). Not a
command for people: its caller (xtalk run --fleet, over ssh on a board or locally for a
Xen dom0 board) speaks to it on its standard streams.

stdin: one JSON line, the job: {"spec": TOML text, "overrides": [PATH=VALUE...] (the
user's --set), "values": {PATH: value} (structured values the board sets, e.g. a
xen-dom0 board's backend options), "run_id": the planned run, "as": {"run_id", "config_id", "config"} (the ids it is
stored under)}; then nothing until the caller goes away: EOF stops the run like
SIGTERM (its guests stopped, the run stored as interrupted).
stderr: `@@xtalk t_s=SECONDS` progress lines (`t_s=-` while the measurer has not begun),
and `xtalk: error: ...` on a failure.
stdout: the run directory as an uncompressed tar stream once the run is stored (also an
interrupted or errored run); nothing when the job could not start.
Exit: 0 the run was stored (whatever its status), 130 interrupted, 2 or 3 an error.
"""
from __future__ import annotations

import dataclasses
import json
import os
import signal
import sys
import tarfile
import tempfile
import threading
import time
from pathlib import Path

from ..backend_registry import check_backend_options
from ..campaign import local_backend, run_meta, sigterm_as_interrupt
from ..errors import EXIT_OK, Problem, RunAborted, SpecError, UsageError
from ..host.pinning import off_measured_cpu
from ..plan import plan
from ..preflight import spec_checks
from ..results.store import RunWriter
from ..runner import execute_run
from ..spec import parse_campaign

PROGRESS_EVERY_S = 0.5
EXIT_INTERRUPTED = 130


def add_parser(sub) -> None:
    p = sub.add_parser("worker", help="run one run of a fleet campaign (started by `xtalk run --fleet`)")
    p.set_defaults(handler=run)


def _job() -> dict:
    try:
        job = json.loads(sys.stdin.readline())
        return {k: job[k] for k in ("spec", "overrides", "values", "run_id", "as", "attempt")}
    except (ValueError, KeyError, TypeError) as err:
        raise UsageError(f"xtalk worker: no valid job on stdin ({err}); it is started by `xtalk run --fleet`") from None


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


def run(args) -> int:
    job = _job()
    spec, raw = parse_campaign(job["spec"], "fleet job", check_backend_options, job["overrides"], spec_checks(),
                               values=job["values"])
    runs = [r for r in plan(spec, raw) if r.run_id == job["run_id"]]
    if not runs:
        raise SpecError("fleet job", [Problem("run_id", f"no run {job['run_id']!r} in the campaign's plan")])
    the_run = dataclasses.replace(runs[0], **job["as"])
    backend, host = local_backend(runs)
    threading.Thread(target=_stop_at_eof, daemon=True).start()
    interrupted, aborted = False, None
    with tempfile.TemporaryDirectory(prefix="xtalk-worker-") as tmp:
        path = Path(tmp) / the_run.run_id
        with sigterm_as_interrupt(), \
                off_measured_cpu(spec.cpus[0], spec.housekeeping_cpus, backend.measures_local_cpus) as own_cpus:
            writer = RunWriter(path, dict(run_meta(the_run, spec), xtalk_cpus=own_cpus, board_host=host,
                                         attempt=job["attempt"]))
            try:
                execute_run(backend, the_run, writer, _progress())
            except KeyboardInterrupt:
                interrupted = True
            except RunAborted as err:  # stored as 'error': sent, then said
                aborted = err
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the run is stored: send it whole
        with tarfile.open(fileobj=sys.stdout.buffer, mode="w|") as tar:
            tar.add(path, arcname=".")
        sys.stdout.buffer.flush()
    if aborted:
        raise aborted
    return EXIT_INTERRUPTED if interrupted else EXIT_OK
