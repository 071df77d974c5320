"""The end of `xtalk search`: the confirmation campaign and what the search leaves.

Fresh runs, side by side in one campaign at the searched placement: the measurer alone,
next to the worst neighbour found (the best trial), and next to the default stressor of
every channel the candidates load (interference/names.py; a channel that cannot be exercised
here is listed with the reason). The analysis gives each its multiplier and verdict and
the ratio of the found neighbour over the best default with its interval
(analysis/search.py); the campaign keeps the search's summary in campaign.json `study`
(trials, the parameters that mattered), which the report plots.

Also writes OUT/search/<name>/worst-neighbour.toml: the found neighbour as a [[stressors]]
table to paste into a spec.

Run once per state of the search (`confirmation`): the first worker to get there runs it
under a lock in the search's directory (workers.py) and records in the study which campaign
holds it, for which best trial and number of finished trials; a worker that gets there
later, or waited on the lock, takes that campaign. A search resumed to more trials, or
whose stored confirmation campaign is gone, is confirmed again.
"""
from __future__ import annotations

import re
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import optuna
import tomli_w

from ..analysis.pipeline import Options, analyze
from ..interference.names import CHANNELS
from ..interference.study import Settings as StudySettings
from ..interference.study import default_entry, plan_entry, study_spec
from ..results.store import CampaignStore
from ..running.derived import run_spec
from ..errors import InfrastructureError
from .earlier import channel_study
from .engine import STATES, Settings
from .objective import harm_unit
from .space import Candidate
from .workers import finished, locked, worker_name

FOUND = "worst"
RECORD = "confirmation"  # the study's user attribute naming the confirmation campaign
CONFIRM_LOCK = "confirm.lock"
WORST_FILE = "worst-neighbour.toml"


def trial_rows(study: optuna.Study) -> list[dict]:
    return [{"number": t.number, "state": t.state.name.lower(), "value": t.value,
             "intermediate": t.intermediate_values.get(0), "neighbour": t.user_attrs.get("neighbour"),
             "default_of": t.user_attrs.get("default_of"), "campaigns": t.user_attrs.get("campaigns", []),
             "worker": t.user_attrs.get("worker")} for t in study.get_trials(deepcopy=False)]


def importances(study: optuna.Study) -> dict:
    """Which parameters mattered (PED-ANOVA over the finished trials), or why not known."""
    done = study.get_trials(deepcopy=False, states=(STATES.COMPLETE,))
    if len(done) < 4:
        return {"values": {}, "reason": f"{len(done)} finished trials: too few to tell"}
    try:
        with warnings.catch_warnings(record=True) as said:  # Optuna's caveats go to the report, not stderr
            warnings.simplefilter("always")
            values = optuna.importance.get_param_importances(
                study, evaluator=optuna.importance.PedAnovaImportanceEvaluator())
    except Exception as err:  # noqa: BLE001 - a summary: its failure is reported in the report, not fatal
        return {"values": {}, "reason": f"not computed: {err}"}
    few = sorted({m.group(1) for w in said if (m := re.search(r"parameter `([^`]+)` have less than", str(w.message)))})
    caveat = f"under 2 trials in some ranges of {', '.join(few)}: their importance may be off" if few else None
    return {"values": dict(values), "reason": caveat if values else "no parameter varied"}


def summary(found: dict, settings: Settings) -> dict:
    study, alone = found["study"], found["alone"]
    return {"name": settings.name, "placement": settings.placement, "metric": alone.metric,
            "harm_unit": harm_unit(alone.scale, alone.unit), "alone_campaign": alone.campaign,
            "trials": trial_rows(study), "importances": importances(study), "seconds": found["seconds"],
            "directory": str(found["directory"]), "settings": settings.key()}


def confirmation_plan(kind: str, options: dict, neighbour: dict, cands: list[Candidate], caches: dict,
                      default_of: str | None = None, channels: tuple[str, ...] = (), vcpus: int = 1) -> list[dict]:
    """The worst neighbour found and the default of each channel the candidates load (of the
    asked `channels` only, where there are: `--channel llc` confirms no l1 default), sized
    as the channel study sizes them for `caches`; where the worst found is a channel's
    default (its trial was that default, `default_of`), one row for both: the default's, as
    the found one (one neighbour, one multiplier)."""
    placing = ({"host": True} if neighbour["host"] else {}) | (
        {"instances": neighbour["instances"]} if neighbour["instances"] != 1 else {})  # True == 1: said apart
    loaded = {c for cand in cands for c in cand.channels} & set(channels or [c.name for c in CHANNELS if
                                                                            c.min_vcpus <= vcpus])
    plan = [] if default_of in loaded else [
        plan_entry(FOUND, "worst found", "the worst neighbour the search found", neighbour["bench"],
                   neighbour["params"], role="found", **placing)]
    for c in CHANNELS:
        if c.name in loaded:
            same = c.name == default_of
            plan.append(default_entry(c, kind, options, caches, vcpus, role="found" if same else "default",
                                      title=c.title + (" (the worst found: this default)" if same else "")))
    return plan


def write_worst(directory: Path, neighbour: dict, summary_: dict, best_value: float) -> Path:
    stressor = {"name": FOUND, "bench": neighbour["bench"], "params": neighbour["params"]}
    if neighbour["host"]:
        stressor["host"] = True
    if neighbour["instances"] > 1:
        stressor["instances"] = neighbour["instances"]
    head = (f"# the worst neighbour `xtalk search {summary_['name']}` found for {summary_['metric']} "
            f"({summary_['placement']}): harm {best_value:+.3g} {summary_['harm_unit']} in the search;\n"
            f"# the confirmation campaign's report gives its multiplier and interval\n")
    path = directory / WORST_FILE
    params = stressor.pop("params")
    inline = ", ".join(tomli_w.dumps({k: v}).strip() for k, v in params.items())  # one `key = value` each
    path.write_text(f"{head}[[stressors]]\n{tomli_w.dumps(stressor)}params = {{ {inline} }}\n")
    return path


@contextmanager
def confirmation(spec, raw: dict, out: Path, settings: Settings, found: dict, cands: list[Candidate],
                 caches: dict) -> Iterator[dict]:
    """The search's confirmation (confirm's dict, with `by`: the worker that ran it, and
    `reused`), run by the first worker to get here; the lock is held for the block, where the
    caller writes the report (one writer at a time). `caches`: spec/run_caches.spec_caches's."""
    study = found["study"]
    with locked(found["directory"] / CONFIRM_LOCK):
        try:
            best = study.best_trial
        except ValueError:
            raise InfrastructureError(f"search {settings.name}: no trial finished, nothing to confirm") from None
        state = {"best_trial": best.number, "finished": finished(study)}
        yield stored(out, found, state) or confirm(spec, raw, out, settings, found, cands, caches, best, state)


def stored(out: Path, found: dict, state: dict) -> dict | None:
    """The confirmation a worker ran for this `state` of the search (its best trial and
    number of finished trials), where its campaign is still stored."""
    record = found["study"].user_attrs.get(RECORD)
    if not record or {k: record.get(k) for k in state} != state:
        return None
    store = out / record["campaign"]
    if not (store / "campaign.json").is_file():
        return None
    analysis = analyze(CampaignStore(store), Options(evt=False, extras=False))
    return {"analysis": analysis, "campaign": analysis.store_path, "worst": found["directory"] / WORST_FILE,
            "by": record["worker"], "reused": True}


def confirm(spec, raw: dict, out: Path, settings: Settings, found: dict, cands: list[Candidate], caches: dict,
            best: optuna.trial.FrozenTrial, state: dict) -> dict:
    """Run the confirmation of `best` and record it in the study, for this `state` of the search."""
    study = found["study"]
    neighbour = best.user_attrs["neighbour"]
    plan = confirmation_plan(spec.backend.kind, spec.backend.options, neighbour, cands, caches,
                             best.user_attrs.get("default_of"), settings.channels, spec.measurer.vcpus)
    info = summary(found, settings)
    info["channel_study"] = channel_study(out, raw["name"])  # the defaults measured before, to stand beside
    info["confirm"] = {"runs": settings.confirm_runs, "duration_s": settings.duration_s}
    record = {"kind": "search", "plan": plan, "placements": [settings.placement], "search": info}
    derived = study_spec(raw, plan, [settings.placement], StudySettings(runs=settings.confirm_runs,
                                                                         duration_s=settings.duration_s),
                         suffix=f"search-{settings.name}-confirm")
    analysis = run_spec(derived, out, "search confirmation", study=record)
    worst = write_worst(found["directory"], neighbour, info, best.value)
    by = worker_name()
    study.set_user_attr(RECORD, {"campaign": analysis.result["campaign"]["id"], "worker": by, **state})
    return {"analysis": analysis, "campaign": analysis.store_path, "worst": worst, "by": by, "reused": False}
