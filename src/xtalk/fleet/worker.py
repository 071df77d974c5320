"""A fleet worker's run (`xtalk worker`, cli/worker_cmd.py reads the job and writes the
stream): one run of a campaign here, stored through a RunWriter in a temporary
directory, then handed over whole (interrupted and errored runs too).

The job: {"spec": TOML text, "overrides": [PATH=VALUE...] (the user's --set), "values":
{PATH: value} (structured values the board sets, e.g. a xen-dom0 board's backend
options), "run_id": the planned run, "attempt": its number in the campaign, "as":
{"run_id", "config_id", "config"} (the ids it is stored under)}, read by parse_job: a job
of other types, or whose ids are not one name of the store (`../x` would put the run outside
the worker's temporary directory), is refused naming its field. SIGTERM (and Ctrl-C)
stop the run like the runner's: its guests stopped, the run stored as interrupted. The
run's CPUs are leased (host/leases.py) while it runs: a board another xtalk measures on
refuses the job.
"""
from __future__ import annotations

import dataclasses
import json
import signal
import tempfile
from pathlib import Path
from typing import Annotated, Any, Callable

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..plugins import check_backend_options
from ..running.campaign import local_backend, run_meta, used_cpus
from ..errors import Problem, RunAborted, SpecError, UsageError
from ..host.leases import Holder, Leases
from ..host.pinning import off_measured_cpu
from ..spec.plan import plan
from ..running.preflight import spec_checks
from ..results.store import RunWriter
from ..running.runner import execute_run
from ..signals import sigterm_as_interrupt
from ..spec.load import parse_campaign

# one name in a directory of the store: the plan's ids (spec/plan.py's slugs) are of these
StoreName = Annotated[str, Field(pattern=r"^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,254}$")]


class _Fields(BaseModel):
    model_config = ConfigDict(strict=True, frozen=True)


class StoredAs(_Fields):
    run_id: StoreName
    config_id: StoreName
    config: dict[str, Any]


class Job(_Fields):
    spec: str
    overrides: list[str]
    values: dict[str, Any]
    run_id: StoreName
    attempt: Annotated[int, Field(ge=1)]
    stored_as: StoredAs = Field(alias="as")


JOB_LIMIT = 4 << 20  # bytes of the job's line: its spec (at most spec/load.py's SPEC_LIMIT, 1 MiB) and values


def read_job(stream) -> dict:
    """The job of the first line of the text `stream` (parse_job), read to at most JOB_LIMIT
    characters: a line that does not end by then (`xtalk worker < /dev/zero`) is refused, not
    read until memory runs out."""
    line = stream.readline(JOB_LIMIT + 1)
    if len(line) > JOB_LIMIT:
        raise UsageError(f"xtalk worker: no valid job on stdin (a line longer than {JOB_LIMIT >> 20} MiB); it is "
                         "started by `xtalk run --fleet`")
    return parse_job(line)


def parse_job(line: str) -> dict:
    """The job of one JSON line, as run_job takes it; a UsageError naming the field that is
    missing or of the wrong kind."""
    try:
        job = Job.model_validate(json.loads(line))
    except ValueError as err:
        if isinstance(err, ValidationError):
            first = err.errors()[0]
            why = f"{'.'.join(map(str, first['loc'])) or 'the job'}: {first['msg']}"
        else:
            why = f"not one JSON line ({err})"
        raise UsageError(f"xtalk worker: no valid job on stdin ({why}); it is started by `xtalk run --fleet`") from None
    return dict(job.model_dump(by_alias=True))


def run_job(job: dict, tick: Callable[[float | None], None], send: Callable[[Path], None],
            ready: Callable[[], None]) -> bool:
    """Run the job's run, then `send` its stored directory; whether it was interrupted.
    `ready()` once this host's backend accepts the run (the caller starts watching for
    its own stop then). A RunAborted (the run stored as 'error') is raised after it was sent."""
    spec, raw = parse_campaign(job["spec"], "fleet job", check_backend_options, job["overrides"], spec_checks(),
                               values=job["values"])
    runs = [r for r in plan(spec, raw) if r.run_id == job["run_id"]]
    if not runs:
        raise SpecError("fleet job", [Problem("run_id", f"no run {job['run_id']!r} in the campaign's plan")])
    the_run = dataclasses.replace(runs[0], **job["as"])
    with Leases(Holder.me(spec.name, f"fleet run {the_run.run_id}")) as leases, \
            tempfile.TemporaryDirectory(prefix="xtalk-worker-") as tmp:
        leases.take(used_cpus(runs))
        backend, host = local_backend(runs)
        ready()
        interrupted, aborted = False, None
        path = Path(tmp) / the_run.run_id
        with sigterm_as_interrupt(), \
                off_measured_cpu(spec.cpus[0], spec.housekeeping_cpus, backend.measures_local_cpus) as own_cpus:
            writer = RunWriter(path, dict(run_meta(the_run, spec), xtalk_cpus=own_cpus, board_host=host,
                                         attempt=job["attempt"]))
            try:
                execute_run(backend, the_run, writer, tick)
            except KeyboardInterrupt:
                interrupted = True
            except RunAborted as err:  # stored as 'error': sent, then said
                aborted = err
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the run is stored: send it whole
        send(path)
    if aborted:
        raise aborted
    return interrupted
