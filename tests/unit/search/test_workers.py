"""The workers of one search (search/workers.py, search/confirm.py's `confirmation`): they
coordinate through the search's directory, not the CPU leases' lock directory. A real
journal, real flocks and real processes; only the measurements are replaced (a trial's
stage sleeps and returns values, the confirmation's campaign is a stand-in)."""
from __future__ import annotations

import dataclasses
import json
import multiprocessing
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from xtalk.search import confirm, engine, space, workers
from xtalk.search.engine import STATES, Settings, open_study, search
from xtalk.search.workers import next_trial, worker_name

CACHES = {"l1": 32 << 10, "l2": 1 << 20, "llc": 16 << 20, "shared": 16 << 20}
RAW = {"name": "spec", "backend": {"kind": "native"}, "cpus": [0, 1], "run": {"duration_s": 0.1},
       "measurer": {"bench": "qsort"}}
SPEC = SimpleNamespace(backend=SimpleNamespace(kind="native", options={}), measurer=SimpleNamespace(vcpus=1))
STAGE_S, CONFIRM_S = 0.2, 0.5


@pytest.fixture
def measured(tmp_path, monkeypatch) -> Path:
    """The measurements replaced: the alone runs, each trial's stage (it sleeps, then gives
    values that grow with the trial), the confirmation's campaign (one file per confirmation
    run in `confirmed`, across processes). The results directory."""
    out, confirmed = tmp_path / "out", tmp_path / "confirmed"
    confirmed.mkdir()

    def alone(raw, settings, out, study):
        found = engine.Alone("alone", "time", [1.0] * 5, "ratio", "ns", "lower")
        study.set_user_attr("alone", dataclasses.asdict(found))
        return found

    def stage(raw, settings, out, neighbour, label, runs, alone):
        time.sleep(STAGE_S)
        return [1.5 + int(label[1:-1]) / 10] * runs, f"campaign-{label}"

    def confirmation_campaign(derived, out, what, study):
        time.sleep(CONFIRM_S)  # long enough for the other worker to arrive while it runs
        campaign = f"{derived['name']}-{len(list(confirmed.iterdir()))}"
        (out / campaign).mkdir()
        (out / campaign / "campaign.json").write_text("{}")
        (confirmed / campaign).write_text(worker_name())
        return stored_analysis(out / campaign)

    def stored_analysis(store):
        return SimpleNamespace(store_path=str(store), result={"campaign": {"id": Path(store).name}, "search": {}})

    monkeypatch.setattr(engine, "_measure_alone", alone)
    monkeypatch.setattr(engine, "_stage", stage)
    monkeypatch.setattr(confirm, "run_spec", confirmation_campaign)
    monkeypatch.setattr(confirm, "CampaignStore", lambda path: path)
    monkeypatch.setattr(confirm, "analyze", lambda store, options: stored_analysis(store))
    monkeypatch.setattr(confirm, "channel_study", lambda out, name: None)
    return out


def run_worker(out: Path, trials: int) -> dict:
    """What `xtalk search` does: the search, then its confirmation (held a moment, as the report is written)."""
    settings = Settings(name="s", channels=("llc",), trials=trials, runs=2)
    cands = space.candidates("native", {}, CACHES, [], ["llc"], [])
    found = search(RAW, out, settings, cands, CACHES, say=lambda text: None)
    with confirm.confirmation(SPEC, RAW, out, settings, found, cands, CACHES) as done:
        time.sleep(0.1)
    return {"campaign": Path(done["campaign"]).name, "by": done["by"], "reused": done["reused"]}


def worker_process(out: Path, trials: int, answer: Path) -> None:
    answer.write_text(json.dumps(run_worker(out, trials)))


def the_study(out: Path, trials: int):
    return open_study(out / "search" / "s", Settings(name="s", channels=("llc",), trials=trials, runs=2))


def states(study) -> list:
    return [t.state for t in study.get_trials(deepcopy=False)]


@pytest.mark.slow
def test_two_workers_of_one_search_finish_the_asked_trials_and_confirm_once(measured, tmp_path, monkeypatch):
    """Two processes on one search (no CPU leases here, so no shared lock directory):
    `--trials 5` is 5 finished trials, not one more per worker (the 5th runs while the other
    has nothing to do), and one confirmation, which the second worker, arriving while it
    runs, waits for and takes as it is."""
    monkeypatch.setattr(workers, "POLL_S", 0.05)  # the waiting worker arrives while the other confirms
    fork = multiprocessing.get_context("fork")  # the replaced measurements go with the processes
    answers = [tmp_path / f"worker-{i}.json" for i in range(2)]
    procs = [fork.Process(target=worker_process, args=(measured, 5, answer)) for answer in answers]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(60)
    assert [proc.exitcode for proc in procs] == [0, 0]
    got = [json.loads(answer.read_text()) for answer in answers]
    study = the_study(measured, 5)
    assert states(study).count(STATES.COMPLETE) + states(study).count(STATES.PRUNED) == 5, states(study)
    assert STATES.RUNNING not in states(study)
    (ran,) = list((tmp_path / "confirmed").iterdir())  # one confirmation campaign
    assert {g["campaign"] for g in got} == {ran.name}
    assert sorted(g["reused"] for g in got) == [False, True]
    assert {g["by"] for g in got} == {ran.read_text()}


@pytest.mark.slow
def test_a_search_run_again_takes_its_confirmation_and_one_resumed_to_more_trials_confirms_again(measured, tmp_path):
    first = run_worker(measured, 3)
    again = run_worker(measured, 3)
    assert again == {**first, "reused": True}
    more = run_worker(measured, 4)
    assert not more["reused"] and more["campaign"] != first["campaign"]
    assert the_study(measured, 4).user_attrs[confirm.RECORD]["finished"] == 4
    for stored in measured.glob("spec-search-s-confirm-*"):  # the user removed the campaign: confirmed again
        (stored / "campaign.json").unlink()
    assert not run_worker(measured, 4)["reused"]
    assert len(list((tmp_path / "confirmed").iterdir())) == 3


def test_a_worker_waits_for_the_trials_others_run_then_replaces_a_failed_one_or_stops(tmp_path, monkeypatch):
    """The quota of 2 taken by 2 running trials of another worker (alive): this one waits;
    when one fails it asks for a new trial; when the others finish it stops; out of time, it
    stops waiting."""
    monkeypatch.setattr(workers, "POLL_S", 0.01)
    study = open_study(tmp_path, Settings(name="s"))
    cut, other = study.ask(), study.ask()
    for trial in (cut, other):
        trial.set_user_attr("worker", worker_name())
    said = []
    ends = iter([lambda: study.tell(cut, state=STATES.FAIL)])

    def the_other_worker_goes_on() -> bool:
        next(ends, lambda: None)()
        return False
    mine = next_trial(study, tmp_path, 2, the_other_worker_goes_on, said.append)
    assert mine is not None and mine.number not in (cut.number, other.number)
    assert any(f"waiting for trial {cut.number}" in text for text in said), said
    assert next_trial(study, tmp_path, 2, lambda: True, said.append) is None  # out of time: stops waiting
    ends = iter([lambda: (study.tell(other, 1.0), study.tell(mine, 2.0))])
    assert next_trial(study, tmp_path, 2, the_other_worker_goes_on, said.append) is None
    assert sorted(states(study), key=str) == sorted([STATES.FAIL, STATES.COMPLETE, STATES.COMPLETE], key=str)
