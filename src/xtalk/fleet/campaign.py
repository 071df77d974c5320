"""`xtalk run SPEC --fleet FLEET`: one campaign over a labgrid-managed fleet of boards.

Modes: `spread` hands the campaign's runs, in plan order, to whichever board is free (the
boards are taken as equivalent); `per-board` runs the whole plan on each board, with the
board as a configuration dimension (`board` = place; config and run ids end in
_<place>), so each board's configurations have their own statistics and baseline, and
`xtalk compare CAMPAIGN@A CAMPAIGN@B` compares two boards.

One campaign directory; every run's meta.json says where it ran (`fleet`: place, kind,
reach, ssh address, and the board's host facts). The places are held (lease.py) from
before the first run until every board is done, on every way out. Before each run a
board answers a health check (ssh `true`; not where the spec power-cycles it before each
run: its boot is the check). A board that stops answering has the run it was on stored
as 'error' with what stopped answering and since when; it is then restarted or set aside
(decisions.py, which writes each decision to campaign.json), as is a board that sent back
a run xtalk does not take (suspect, unpack.py). A set-aside board's remaining runs go to
the other boards (spread) or are not run (per-board); --resume redoes both, on every board.
Ctrl-C / SIGTERM stop every board's run (each stored as interrupted) and exit 130. The
campaign directory is leased (host/leases.py) as a campaign's here is; the boards' CPUs
are their workers'.
"""
from __future__ import annotations

import collections
import dataclasses
import shutil
import threading
import time
from pathlib import Path

from rich.console import Console

from ..tty import stderr_console
from ..analysis.boards import BOARD_DIM
from ..plugins import check_backend_options
from ..running.campaign import CampaignResult, open_store, run_meta
from ..errors import InfrastructureError, Problem, RunAborted, SpecError, describe_failure
from ..host.leases import Holder, Leases
from ..host.metadata import host_facts
from ..spec.plan import RunPlan, _slug, plan
from ..running.preflight import spec_checks
from ..results.store import CampaignStore, read_run_record
from ..signals import interrupts_name, sigterm_as_interrupt
from ..spec.load import parse_campaign
from ..spec.model import Campaign
from .boards import Board, BoardDown, board_values
from .console import LOG as SERIAL_LOG, SerialCapture
from ..remote.coordinator import Coordinator
from .decisions import BoardDecisions, SetAside, fleet_record
from .lease import Lease
from .model import BoardKind, Fleet
from .progress import FleetProgress

BOARD_FACTS = ("hostname", "machine", "cpu_model", "kernel", "online_cpus")


@dataclasses.dataclass(frozen=True)
class Job:
    planned: str  # the run's id in the spec's plan (what the worker runs)
    run: RunPlan  # as stored (per-board: with the board dimension)
    place: str | None  # per-board: the only board it may run on


def on_board(run: RunPlan, place: str) -> RunPlan:
    cid = f"{run.config_id}_{_slug(place)}"
    return dataclasses.replace(run, run_id=cid + run.run_id[len(run.config_id):], config_id=cid,
                               config={**run.config, BOARD_DIM: place})


def jobs_of(runs: list[RunPlan], places: list[str], mode: str) -> list[Job]:
    if mode == "spread":
        return [Job(r.run_id, r, None) for r in runs]
    return [Job(r.run_id, on_board(r, p), p) for p in places for r in runs]


def _check(spec: Campaign, raw: dict, text: str, source: str, overrides: list[str], fleet: Fleet,
           fleet_source: str) -> None:
    """Before anything is reserved: a kind of a backend's reach (xen-dom0) needs that backend,
    and the spec must stay valid with what its boards set: the kind's options for it (a
    problem there is the fleet file's)."""
    problems = []
    for i, kind in enumerate(fleet.kinds):
        backend = kind.reach_backend()
        if backend is None:
            continue
        if spec.backend.kind != backend.name:
            problems.append(Problem(f"kinds[{i}].reach", f"{kind.reach} boards run the {backend.name} backend, not "
                                                          f"{spec.backend.kind!r} (the spec's backend.kind)"))
            continue
        try:
            parse_campaign(text, source, check_backend_options, overrides, spec_checks(), Path(source).parent,
                           board_values(kind, raw, "board"))
        except SpecError as err:
            problems += [_as_fleet_problem(p, i, kind) for p in err.problems]
    if problems:
        raise SpecError(fleet_source, list(dict.fromkeys(problems)))


def _as_fleet_problem(problem: Problem, i: int, kind: BoardKind) -> Problem:
    """A spec problem with a value of the kind's backend options, told at that option."""
    key = problem.path.removeprefix("backend.")
    if key.split(".")[0] not in kind.backend_options():
        return problem
    return Problem(f"kinds[{i}].{kind.reach_backend().name}.{key}",
                   problem.message.removesuffix(" (value from the fleet file)"))


class Dispatch:
    """Board threads taking jobs; what each run became; what could not run."""

    def __init__(self, store: CampaignStore, spec: Campaign, raw: dict, text: str, overrides: list[str],
                 todo: list[Job], mode: str, progress: FleetProgress):
        self.store, self.spec, self.raw, self.text, self.overrides = store, spec, raw, text, overrides
        self.queue = collections.deque(todo)
        self.mode, self.progress = mode, progress
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.results: list[dict] = []
        self.down: dict[str, str] = {}  # the boards set aside, and why
        self.decisions = BoardDecisions(store, progress)
        self.fatal: BaseException | None = None
        (store.path / "incoming").mkdir(exist_ok=True)

    def take(self, place: str) -> Job | None:
        with self.lock:
            if self.stop.is_set():
                return None
            job = next((j for j in self.queue if j.place in (None, place)), None)
            if job is not None:
                self.queue.remove(job)
            return job

    def give_back(self, job: Job) -> None:
        """A job taken but not run: the next to be taken."""
        with self.lock:
            self.queue.appendleft(job)

    def serve(self, board: Board) -> None:
        name = board.place.name
        try:
            while (job := self.take(name)) is not None:
                try:
                    self._checked(board, job)
                except BoardDown as err:
                    self.decisions.after(board, err)
            self.progress.state(name, "stopped" if self.stop.is_set() else "done")
        except SetAside as aside:
            with self.lock:
                self.down[name] = aside.reason
            self.progress.down(name, aside.state.upper(), aside.reason)
        except BaseException as err:  # noqa: BLE001 - a full disk, a bug: every board stops
            with self.lock:
                self.fatal = self.fatal or err
            self.stop.set()

    def _checked(self, board: Board, job: Job) -> None:
        """The job on the board once it answers the health check; given back when it does not."""
        if not self.spec.run.power_cycle:
            try:
                board.check()
            except BoardDown:
                self.give_back(job)
                raise
        self._one(board, job)

    def _one(self, board: Board, job: Job) -> None:
        run, place = job.run, board.place.name
        facts = dict(board.facts(), mode=self.mode)
        started = time.monotonic()
        serial_log = self.store.path / "incoming" / f"{run.run_id}.{SERIAL_LOG}"
        serial_log.unlink(missing_ok=True)  # left by an xtalk that was killed
        failure = None
        with SerialCapture(board.place, serial_log) as console:
            try:
                if self.spec.run.power_cycle:
                    self.progress.state(place, "power cycle")
                    board.power_cycle()
                self.progress.running(place, run.run_id, "starting")
                incoming = self.store.path / "incoming" / run.run_id
                shutil.rmtree(incoming, ignore_errors=True)  # left by an xtalk that was killed
                sent = board.execute(
                    {"spec": self.text, "overrides": self.overrides, "values": board.values(self.raw),
                     "run_id": job.planned, "attempt": self.store.next_attempt(run.run_id),
                     "as": {"run_id": run.run_id, "config_id": run.config_id, "config": run.config}},
                    incoming, self.stop, lambda t_s: self.progress.running(place, run.run_id, t_s))
            except InfrastructureError as err:
                failure = err
        if failure is None:
            host = read_run_record(sent).get("board_host") or {}
            meta = self.store.adopt_run(run.run_id, sent, serial_console=console.facts(),
                                        fleet=dict(facts, board={k: host.get(k) for k in BOARD_FACTS}))
        else:
            meta = self.store.start_run(dict(run_meta(run, self.spec), fleet=facts,
                                             serial_console=console.facts())).finish("error", str(failure))
        if serial_log.exists():
            serial_log.rename(self.store.run_dir(run.run_id) / SERIAL_LOG)
        self.results.append(meta)
        self.progress.finished(place, run.run_id, meta, time.monotonic() - started)
        if isinstance(failure, BoardDown):
            raise failure

    def left(self) -> dict[str, str]:
        """The runs nobody ran, and why."""
        out = {}
        for job in self.queue:
            why = self.down.get(job.place) if job.place else "every board went down"
            out[job.run.run_id] = f"not run: {why or 'interrupted'}"
        return out


def run_fleet_campaign(spec: Campaign, raw: dict, text: str, source: str, out: Path, fleet: Fleet,
                       fleet_source: str, overrides: list[str], resume: bool = False,
                       console: Console | None = None, wait: bool = False) -> CampaignResult:
    """`wait`: for the campaign directory another xtalk holds (--resume), instead of refusing."""
    console = console or stderr_console()
    with Leases(Holder.me(spec.name, f"results in {out}"), wait) as leases:
        return _run_fleet_campaign(spec, raw, text, source, out, fleet, fleet_source, overrides, resume, console,
                                   leases)


def _run_fleet_campaign(spec: Campaign, raw: dict, text: str, source: str, out: Path, fleet: Fleet,
                        fleet_source: str, overrides: list[str], resume: bool, console: Console,
                        leases: Leases) -> CampaignResult:
    _check(spec, raw, text, source, overrides, fleet, fleet_source)
    runs = plan(spec, raw)
    with Coordinator(fleet.coordinator) as lab:
        chosen = [(name, kind) for i, kind in enumerate(fleet.kinds)
                  for name in lab.select(list(kind.places), kind.tags, f"{fleet_source}: kinds[{i}]")]
    names = [n for n, _ in chosen]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise SpecError(fleet_source, [Problem("kinds", f"place {', '.join(twice)} is in more than one kind")])
    jobs = jobs_of(runs, names, fleet.mode)
    earlier = CampaignStore.latest(out, spec.name) if resume else None
    store = open_store(spec, raw, text, source, out, resume, [j.run for j in jobs], host_facts(), leases,
                       fleet=fleet_record(earlier, fleet.mode))
    done = store.completed_run_ids() if resume else set()
    todo = [j for j in jobs if j.run.run_id not in done]
    with sigterm_as_interrupt(), interrupts_name(store.path), Lease(fleet, chosen) as places, \
            FleetProgress(console, spec.name, names, len(jobs), len(jobs) - len(todo),
                          spec.run.duration_s) as progress:
        boards = [Board(p, fleet.max_run_mib) for p in places]
        if spec.run.power_cycle:
            for board in boards:
                board.power_driver()  # every board can: checked before the first run
        dispatch = Dispatch(store, spec, raw, text, overrides, todo, fleet.mode, progress)
        threads = [threading.Thread(target=dispatch.serve, args=(b,), name=f"board {b.place.name}") for b in boards]
        for t in threads:
            t.start()
        try:
            while any(t.is_alive() for t in threads):
                for t in threads:
                    t.join(0.2)
        except KeyboardInterrupt:
            dispatch.stop.set()
            for t in threads:
                t.join()
            raise
        shutil.rmtree(store.path / "incoming", ignore_errors=True)
    if dispatch.fatal is not None:
        err = dispatch.fatal
        raise err if isinstance(err, RunAborted) else RunAborted("(fleet)", describe_failure(err)) from err
    return CampaignResult(store, dispatch.results, sorted(done), dispatch.left(), dispatch.down)
