"""The search loop of `xtalk search`: an Optuna study (TPE sampler, median pruner) kept in
a journal file, OUT/search/<name>/journal.log, so a search resumes where Ctrl-C stopped
it (the trial it cut is marked failed, its runs stay stored) and several workers that
share OUT (processes, hosts or boards of a fleet) work on one search: Optuna's journal takes
a lock per write, and the workers coordinate through the search's directory (workers.py):
`trials` finished trials in all, the solo runs measured once.

First the measurer alone (one campaign, kept for the whole search), then each trial: a
neighbour the sampler proposes (space.py), as fresh runs in a campaign of its own, in
two stages: the first half of its runs, reported to the pruner (a candidate below the
median of earlier trials at that stage is stopped there), then the rest. A trial whose
runs do not all pass is failed with the reason and the search goes on (three in a row
stop it). The trial's
value is objective.harm over all its runs against the solo runs. Each channel's default
stressor among the candidates is enqueued first, so the search starts from the untuned
neighbours a channel study runs, then the corners of each candidate's box (enqueue_corners);
then TPE with few random trials (sampler). Stops after `trials` finished trials (all workers'), or
when this process has used `budget_s` (also while it waits for other workers' trials).
"""
from __future__ import annotations

import itertools
import json
import math
import time
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path

import optuna

from ..analysis.verdict import Context
from ..interference.names import CHANNELS
from ..running.derived import base, run_spec, stressors_first
from ..spec.run_caches import unanswered
from ..errors import InfrastructureError, Problem, SpecError, XtalkError
from ..files import write_atomic
from .objective import harm, harm_unit
from . import journal
from .space import Candidate, suggest
from .workers import STATES, fail_stale, locked, next_trial

MAX_FAILED_IN_A_ROW = 3  # then the search stops: the host, not the neighbour, is likely the cause


@dataclass(frozen=True)
class Settings:
    name: str
    placement: str = "other-core"
    trials: int = 20
    budget_s: float | None = None
    runs: int = 4                  # per trial
    confirm_runs: int = 5
    duration_s: float = 2.0
    seed: int = 0
    max_instances: int = 1
    metric: str | None = None
    stressors: tuple[str, ...] = ()
    channels: tuple[str, ...] = ()
    tunes: tuple[str, ...] = ()
    extra: dict = field(default_factory=dict)

    def key(self) -> dict:
        """What must not change when a search resumes (the budget and trial count may)."""
        return {k: v for k, v in asdict(self).items() if k not in ("trials", "budget_s", "extra")}


def search_dir(out: Path, name: str) -> Path:
    return out / "search" / name


def open_study(directory: Path, settings: Settings, earlier: list[str] = (), say=print) -> optuna.Study:
    """The search's study, its journal made whole first (journal.py); `earlier`: this
    search's stored campaigns, which a lost journal cannot resume."""
    directory.mkdir(parents=True, exist_ok=True)
    settings_file = directory / journal.SETTINGS
    now = json.loads(json.dumps(settings.key()))  # as stored: tuples are lists
    journal.heal(directory, say)
    journal.check_kept(directory, list(earlier))
    before = journal.read_settings(directory)
    if before is not None:
        changed = sorted(k for k in set(before) | set(now) if before.get(k) != now.get(k))
        if changed:
            raise SpecError("search", [Problem("--name", f"search {settings.name!r} in {directory} was started with "
                                                         f"other {', '.join(changed)}; give another --name")])
    else:
        write_atomic(settings_file, json.dumps(settings.key(), indent=1))  # a link in its place replaced, not followed
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    path = directory / journal.JOURNAL
    try:  # Optuna replays the journal here
        storage = optuna.storages.JournalStorage(optuna.storages.journal.JournalFileBackend(str(path)))
        return optuna.create_study(storage=storage, study_name=settings.name, direction="maximize",
                                   load_if_exists=True, sampler=sampler(settings.seed),
                                   pruner=optuna.pruners.MedianPruner(n_startup_trials=3, n_warmup_steps=0))
    except Exception as err:  # noqa: BLE001 - whole records Optuna cannot replay: the journal's fault, said so
        raise SpecError("search", [Problem("--name", f"{path}: Optuna cannot replay this journal ({type(err).__name__}: "
                                                     f"{err}); give another --name to start a new search")]) from None


def sampler(seed: int) -> optuna.samplers.BaseSampler:
    """TPE for small budgets (benchmarks/bench_search_budget.py): 2 random start-up trials,
    not Optuna's 10 (with a budget of 10 that is a random search); multivariate: parameters
    that act together (a steal's length and period); 256 candidates a step, not 24, and a
    weak prior (0.1, not 1: with a handful of trials the prior, flat over the whole range,
    outweighs them). Measured there, 10 trials on a peak one octave wide in eleven: 80 % of it
    with the settings before (5 start-up trials, 24 candidates, no corners), 84 % with 2 and
    64 and the corners, 91 % with these. The box's corners come first (enqueue_corners)."""
    with warnings.catch_warnings():  # prior_weight: deprecated in Optuna 4.9, there until 6 (pyproject pins 5.0)
        warnings.simplefilter("ignore", FutureWarning)
        return optuna.samplers.TPESampler(seed=seed, n_startup_trials=2, multivariate=True, n_ei_candidates=256,
                                          prior_weight=0.1)


CORNER_DIMS = 2  # a candidate with at most this many numeric ranges gets its 2^d corners tried first


def enqueue_corners(study: optuna.Study, cands: list[Candidate]) -> None:
    """The corners of each candidate's box (its numeric ranges at their ends), after the
    defaults: interference mostly grows with a neighbour's share, rate or size up to a
    limit, so its worst case is often at an end of a range, which TPE's random start
    rarely hits (a steal's longest length at its shortest period)."""
    for cand in cands:
        ranged = [d for d in cand.dims if d.kind in ("size", "int", "float") and d.low != d.high]
        if not ranged or len(ranged) > CORNER_DIMS:
            continue
        for ends in itertools.product(*[(d.low, d.high) for d in ranged]):
            study.enqueue_trial({**({"bench": cand.bench} if len(cands) > 1 else {}),
                                 **{d.key: end for d, end in zip(ranged, ends)}}, skip_if_exists=True)


def enqueue_defaults(study: optuna.Study, cands: list[Candidate], caches: dict, channels: tuple[str, ...] = ()
                     ) -> None:
    """Each channel's default stressor that is a candidate, as the first trials of a new study
    (search() calls it once, on a study without trials; `caches`: spec/run_caches.run_caches's, or plain {level: bytes}); of the asked
    `channels` only, where there are (`--channel llc` does not try the l2 default)."""
    names = {c.bench: c for c in cands}
    for channel in CHANNELS:
        if channels and channel.name not in channels:
            continue
        cand = names.get(channel.bench)
        if cand is None or unanswered(channel.params, caches):
            continue  # not a candidate, or sized by a level these caches lack (no shared level)
        fixed = {d.key: d.start(channel.params.get(d.name, d.default), caches) for d in cand.dims
                 if d.kind == "choice" or (d.kind != "fixed" and d.low != d.high)}
        study.enqueue_trial({**({"bench": cand.bench} if len(cands) > 1 else {}), **fixed},
                            user_attrs={"default_of": channel.name}, skip_if_exists=True)


def neighbour_spec(raw: dict, settings: Settings, neighbour: dict, label: str, runs: int) -> dict:
    spec = base(raw, f"{raw['name']}-search-{settings.name}-{label}", settings.duration_s, runs)
    spec["measurer"] = dict(raw["measurer"])
    stressor = {"name": "neighbour", "bench": neighbour["bench"], "params": neighbour["params"]}
    if neighbour["host"]:
        stressor["host"] = True
    if neighbour["instances"] > 1:
        stressor["instances"] = neighbour["instances"]
    spec["stressors"] = [stressor]
    spec["matrix"] = {"placement": [settings.placement]}
    return stressors_first(spec)


@dataclass
class Alone:
    """The measurer alone: its runs' primary statistic, and what it is."""
    campaign: str
    metric: str
    values: list[float]
    scale: str
    unit: str
    better: str


def measure_alone(raw: dict, settings: Settings, out: Path, study: optuna.Study, directory: Path) -> Alone:
    """The search's solo runs: measured by the first worker, under a lock the others wait on."""
    with locked(directory / "alone.lock"):
        stored = study.user_attrs.get("alone")
        return Alone(**stored) if stored else _measure_alone(raw, settings, out, study)


def _measure_alone(raw: dict, settings: Settings, out: Path, study: optuna.Study) -> Alone:
    spec = base(raw, f"{raw['name']}-search-{settings.name}-alone", settings.duration_s, max(5, settings.runs))
    spec["measurer"] = dict(raw["measurer"])
    analysis = run_spec(spec, out, "search baseline (the measurer alone)")
    ctx = Context.of(analysis)
    metric = settings.metric or sorted(analysis.infos)[0]
    if metric not in analysis.infos:
        raise SpecError("search", [Problem("--metric", f"{metric!r}: the measurer reports {', '.join(analysis.infos)}")])
    info = analysis.infos[metric]
    (cid,) = ctx.runs_of
    alone = Alone(analysis.result["campaign"]["id"], metric, ctx.primary_values(cid, metric),
                  info.kind.primary.scale, info.kind.primary.unit, info.kind.better)
    study.set_user_attr("alone", asdict(alone))
    return alone


def _stage(raw, settings, out, neighbour, label, runs, alone: Alone) -> tuple[list[float], str]:
    analysis = run_spec(neighbour_spec(raw, settings, neighbour, label, runs), out, "search trial")
    ctx = Context.of(analysis)
    (cid,) = ctx.runs_of
    return ctx.primary_values(cid, alone.metric), analysis.result["campaign"]["id"]


def run_trial(study, trial, raw, settings, out, cands, alone: Alone) -> None:
    neighbour = suggest(trial, cands, settings.max_instances)
    trial.set_user_attr("neighbour", neighbour)
    first = math.ceil(settings.runs / 2)
    values, campaign = _stage(raw, settings, out, neighbour, f"t{trial.number}a", first, alone)
    campaigns = [campaign]
    trial.set_user_attr("campaigns", campaigns)
    value = harm(values, alone.values, alone.scale, alone.unit, alone.better)
    if value is None:
        study.tell(trial, state=STATES.FAIL)
        return
    trial.report(value, 0)
    if trial.should_prune():
        study.tell(trial, state=STATES.PRUNED)
        return
    if settings.runs > first:
        more, campaign = _stage(raw, settings, out, neighbour, f"t{trial.number}b", settings.runs - first, alone)
        values += more
        trial.set_user_attr("campaigns", campaigns + [campaign])
    trial.set_user_attr("values", values)
    study.tell(trial, harm(values, alone.values, alone.scale, alone.unit, alone.better))


def search(raw: dict, out: Path, settings: Settings, cands: list[Candidate], caches: dict,
           say=print) -> dict:
    """Run (or resume) the search until it has `trials` finished trials or this process
    used its budget. Returns the study's summary (summary.py)."""
    directory = search_dir(out, settings.name)
    study = open_study(directory, settings, journal.trial_campaigns(out, raw["name"], settings.name), say)
    stale = fail_stale(study)
    if stale:
        say(f"search {settings.name}: {stale} trial(s) cut by an earlier stop marked failed; resuming")
    if not study.trials:
        enqueue_defaults(study, cands, caches, settings.channels)
        enqueue_corners(study, cands)
    alone = measure_alone(raw, settings, out, study, directory)
    started, failed = time.monotonic(), 0

    def out_of_time() -> bool:
        used = settings.budget_s is not None and time.monotonic() - started >= settings.budget_s
        if used:
            say(f"search {settings.name}: time budget used ({settings.budget_s:g} s)")
        return used
    while not out_of_time():
        trial = next_trial(study, directory, settings.trials, out_of_time, say)
        if trial is None:
            break
        try:
            run_trial(study, trial, raw, settings, out, cands, alone)
            failed = 0
        except XtalkError as err:  # a run of the trial did not pass (a neighbour too big for this host...)
            failed += 1
            trial.set_user_attr("error", str(err))
            study.tell(trial, state=STATES.FAIL)
            if failed == MAX_FAILED_IN_A_ROW:
                raise InfrastructureError(f"search {settings.name}: {failed} trials in a row failed; last: {err}") from err
        except BaseException:  # Ctrl-C: this trial is failed, its runs stay stored
            if study.trials[trial.number].state == STATES.RUNNING:
                study.tell(trial, state=STATES.FAIL)
            raise
        done = study.trials[trial.number]
        say(f"trial {trial.number}: {done.state.name.lower()}"
            + (f", harm {done.value:+.3g} {harm_unit(alone.scale, alone.unit)}" if done.value is not None else "")
            + f"  {done.user_attrs.get('neighbour')}" + (f"  ({done.user_attrs['error']})" if failed else ""))
    return {"study": study, "alone": alone, "directory": directory, "seconds": time.monotonic() - started}
