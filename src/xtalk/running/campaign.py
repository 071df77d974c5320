"""Run a whole campaign: validate, plan, open the store first, then each run in order
with a progress display; a failed run is recorded and the campaign goes on. An
unexpected exception (a full disk, a bug) stops the campaign after its run is stored as
'error' (RunAborted, exit 3, one line).

--resume continues the latest campaign of the same name and spec, skipping runs that
completed (pass, fail or degraded) and redoing interrupted or errored ones, and those whose
files are not as their manifests hash them (every file is hashed: a change that kept a
file's size and mtime too).

A campaign holds leases (host/leases.py) on every CPU its runs use, taken before anything
starts, and on its directory, taken before anything is written there: another xtalk that
holds one is named and the campaign refused, or with `wait` it waits for them.

As a run ends (its measured window over), the next run's guests are launched (ahead.py:
QEMU spawned paused, then QMP answered and pinned), off every measured window: that
run's start only resumes them.

Each run's meta.json records its host and backend's cost of one preemption where
`xtalk calibrate` measured it into the same results directory (results/platform.py).
"""
from __future__ import annotations

import functools
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from ..tty import stderr_console
from ..images import artifacts
from ..plugins import backend_class
from ..backends.base import Backend
from ..parsers.console_log import console_facts
from ..errors import InfrastructureError, Problem, RunAborted, SpecError, describe_failure
from ..host.leases import Holder, Leases, cpu_leases, directory_lease
from ..host.metadata import host_facts
from ..host.pinning import off_measured_cpu
from ..host.shm import sweep_stale
from ..spec.plan import GuestPlan, RunPlan, backend_kinds, plan
from ..results.platform import platform_fact
from ..spec.run_caches import with_caches
from ..results.store import CampaignStore, RunWriter, spec_hash
from .ahead import Ahead
from .runner import execute_run
from ..signals import interrupts_name, sigterm_as_interrupt
from ..spec.diff import describe_changes
from ..spec.model import Campaign


@dataclass
class CampaignResult:
    store: CampaignStore
    runs: list[dict]
    skipped: list[str]
    not_run: dict[str, str] = field(default_factory=dict)  # run id -> why it was not run (a fleet's lost board)
    boards_out: dict[str, str] = field(default_factory=dict)  # a fleet's place -> why no more runs went to it


def open_store(spec: Campaign, raw: dict, text: str, source: str, out: Path, resume: bool,
               runs: list[RunPlan], host: dict, leases: Leases, **extra) -> CampaignStore:
    """A new campaign directory (with `extra` in campaign.json), or with --resume the latest
    of this spec, checked to be the same spec and to match `extra`; leased either way."""
    if resume:
        store = CampaignStore.latest(out, spec.name)
        if store is None:
            raise SpecError(source, [Problem("name", f"--resume: no campaign named {spec.name!r} in {out}")])
        store.manifests.verify = True  # every file hashed: a run changed in place (size and mtime kept) is redone
        if store.info.get("spec_hash") != spec_hash(text):
            what = describe_changes(store.info.get("spec") or {}, json.loads(json.dumps(raw, default=str))) \
                or "its text only: comments, layout or the order of --set"
            raise SpecError(source, [Problem("(file)", f"--resume: the spec changed since {store.path.name} "
                                                       f"was started ({what}); run without --resume for a new "
                                                       "campaign")])
        for key, value in extra.items():
            if store.info.get(key) != value:
                raise SpecError(source, [Problem(key, f"--resume: {store.path.name} was not run with this {key} "
                                                      f"({store.info.get(key)!r}); run without --resume")])
        leases.take(directory_lease(store.path))
        store.recover_interrupted(console_facts)
        return store
    store = CampaignStore.create(out, spec.name, text, raw, host, [r.run_id for r in runs], **extra)
    leases.take(directory_lease(store.path))
    return store


def used_cpus(runs: list[RunPlan]) -> dict[str, str]:
    """The CPU leases of every CPU the runs measure on or stress, named by whose CPUs they are."""
    leases: dict[str, str] = {}
    for run in runs:
        scope = backend_class(run.backend).cpu_scope(run.spec.backend.options)
        leases |= cpu_leases(scope, (cpu for guest in run.guests for cpu in guest.cpus))
    return leases


def run_campaign(spec: Campaign, raw: dict, text: str, source: str, out: Path, resume: bool = False,
                 console: Console | None = None, study: dict | None = None, wait: bool = False,
                 label: str | None = None) -> CampaignResult:
    """`wait`: for the CPUs and directory another xtalk holds, instead of refusing; `label`:
    what a derived campaign is for ("the membw channel's stressor alone"), named on the
    progress line of a run that did not pass."""
    console = console or stderr_console()
    tell = functools.partial(console.print, markup=False, highlight=False)
    with Leases(Holder.me(spec.name, f"results in {out}"), wait, tell) as leases:
        return _run_campaign(spec, raw, text, source, out, resume, console, study, leases, label)


def _run_campaign(spec: Campaign, raw: dict, text: str, source: str, out: Path, resume: bool, console: Console,
                  study: dict | None, leases: Leases, label: str | None) -> CampaignResult:
    sweep_stale()  # rings and guest RAM files of an xtalk that was SIGKILLed
    host = host_facts()
    runs, unanswered = with_caches(plan(spec, raw), out, host)
    if unanswered:
        raise SpecError(source, unanswered)
    leases.take(used_cpus(runs))
    backends = make_backends(runs, host)
    local = any(b.measures_local_cpus for b in backends.values())
    platforms = {kind: platform_fact(out, host.get("hostname"), kind) for kind in backend_kinds(runs)}
    store = open_store(spec, raw, text, source, out, resume, runs, host, leases,
                       **({"study": study} if study else {}))
    done = store.completed_run_ids() if resume else set()
    todo = [r for r in runs if r.run_id not in done]
    results = []
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn())
    with sigterm_as_interrupt(), interrupts_name(store.path), \
            off_measured_cpu(spec.cpus[0], spec.housekeeping_cpus, local) as own_cpus, \
            Progress(*columns, console=console, transient=False, disable=not console.is_terminal) as progress:
        task = progress.add_task(f"{spec.name}", total=len(runs), completed=len(runs) - len(todo))

        def open_run(run: RunPlan) -> RunWriter:
            return store.start_run(dict(run_meta(run, spec), xtalk_cpus=own_cpus, **_platform(platforms[run.backend])))

        with Ahead(backends, open_run) as ahead:  # the next run's guests launched while a run ends
            for run, following in zip(todo, todo[1:] + [None]):
                progress.update(task, description=f"{spec.name} · {run.run_id}")
                launched = ahead.take(run)
                try:
                    writer = launched.writer if launched else open_run(run)
                except OSError as err:  # a full or read-only disk before the run began
                    raise RunAborted(run.run_id, describe_failure(err), stored=False) from err
                started = time.monotonic()

                def tick(t_s, run=run):
                    progress.update(task, description=f"{spec.name} · {run.run_id} · {t_s or 0:5.1f} s")

                meta = execute_run(backends[run.run_id], run, writer, tick, launched,
                                   functools.partial(ahead.launch, following))
                backend_meta = meta.get("backend_metadata") or {}
                if backend_meta.get("target"):  # the backend restarted or set aside its target before the run
                    where = (backend_meta.get("executor") or {}).get("label") or run.backend
                    store.add_target_decisions(f"dom0 ({where})", backend_meta["target"])
                results.append(meta)
                progress.advance(task)
                mark = {"pass": "ok", "fail": "FAILED"}.get(meta["status"], meta["status"].upper())
                took = time.monotonic() - started
                line = f"{run.run_id:<40} {mark:<8} {meta.get('sample_count', 0):>8} samples {took:6.1f}s"
                if meta.get("reason"):
                    line += f"  ({meta['reason']})"
                if label and meta["status"] != "pass":
                    line += f"  [{label}: {spec.name}]"
                if not console.is_terminal:
                    console.print(line, highlight=False)
                else:
                    progress.console.print(line, highlight=False)
                ahead.settle()  # the next run's guests, launched while this one was stored, made ready
    return CampaignResult(store, results, sorted(done))


def _platform(fact: dict | None) -> dict:
    """meta.json's `platform` (results/platform.py), absent where never calibrated."""
    return {"platform": fact} if fact else {}


def local_backend(runs: list[RunPlan]) -> tuple[Backend, dict]:
    """The backend of a fleet worker's run on this host, with the host's facts, once it
    accepts the run (make_backends: one backend, the job is one run)."""
    sweep_stale()  # rings and guest RAM files of an xtalk that was SIGKILLed
    host = host_facts()
    return next(iter(make_backends(runs, host).values())), host


def make_backends(runs: list[RunPlan], host: dict) -> dict[str, Backend]:
    """The backend of each run (by run id): one per kind the runs use (the backend as a
    matrix dimension: several) and, unless the backend reads each run's options itself,
    per distinct options (a backend option as a matrix dimension), once each kind accepts
    this host; every one is made and checks its runs before any run starts."""
    groups: dict[tuple, list[RunPlan]] = {}
    for kind in backend_kinds(runs):
        cls = backend_class(kind)
        ok, why = cls.accepts(host)
        if not ok:
            raise InfrastructureError(f"backend {kind} cannot run here: {why}")
        for run in (r for r in runs if r.backend == kind):
            options = () if cls.reads_run_options else json.dumps(run.spec.backend.options, sort_keys=True, default=str)
            groups.setdefault((cls, options), []).append(run)
    of_run = {}
    for (cls, _), mine in groups.items():
        backend = cls(mine[0].spec.backend.options)
        backend.check_plan(mine)
        of_run |= {r.run_id: backend for r in mine}
    return of_run


def run_meta(run: RunPlan, spec: Campaign) -> dict:
    return {
        "run_id": run.run_id, "index": run.index, "config_id": run.config_id,
        "config": run.config, "repetition": run.repetition, "warmup": run.warmup,
        "placement": run.placement, "start_order": run.start_order,
        "campaign": spec.name, "backend": run.backend,
        "warmup_s": run.spec.run.warmup_s,
        "measurer": {"bench": run.measurer.bench, "params": run.measurer.params,
                     "cpus": list(run.measurer.cpus), **_guest_output(run.measurer)},
        "stressors": [{"name": g.name, "stressor": g.stressor, "bench": g.bench, "params": g.params, "cpus": list(g.cpus),
                       "starts_at_boot": g.starts_at_boot, "host": g.host, **_guest_output(g)}
                      for g in run.stressors],
        "timeline": [e.model_dump() for e in run.timeline],
        "duration_s": run.spec.run.duration_s,
    }


def _guest_output(guest: GuestPlan) -> dict:
    """How a guest's console is read, and its own image (with its hash) where it has one."""
    out: dict = {"output": guest.output, "parser": guest.parser}
    for key in ("image", "initrd"):
        if getattr(guest, key):
            out |= {key: getattr(guest, key), f"{key}_sha256": artifacts.file_hash(Path(getattr(guest, key)))}
    if guest.append:
        out["append"] = guest.append
    return out
