"""The search's study (search/engine.py): one journal per search name, refused when the
settings that define the search changed, and a trial a killed process left running is
marked failed on resume (a live worker's is left alone)."""
from __future__ import annotations

import dataclasses
import os
import socket
import subprocess

import pytest

from xtalk.errors import SpecError
from xtalk.search import space
from xtalk.search.engine import STATES, Settings, enqueue_defaults, open_study
from xtalk.search.workers import fail_stale

CACHES = {"l1": 32 << 10, "l2": 1 << 20, "llc": 16 << 20, "shared": 16 << 20}


def test_a_search_resumes_only_with_the_settings_it_was_started_with(tmp_path):
    settings = Settings(name="s", channels=("llc",), tunes=("cache_thrash.size=1m..4m",))
    study = open_study(tmp_path, settings)
    study.tell(study.ask(), 1.0)
    again = open_study(tmp_path, dataclasses.replace(settings, trials=50, budget_s=60.0))  # more trials: the same search
    assert len(again.trials) == 1
    with pytest.raises(SpecError, match="other placement"):
        open_study(tmp_path, dataclasses.replace(settings, placement="same-core"))


def test_a_trial_left_running_by_a_dead_process_is_failed_a_live_ones_is_not(tmp_path):
    study = open_study(tmp_path, Settings(name="s"))
    dead = subprocess.Popen(["true"])
    dead.wait()
    cut, live = study.ask(), study.ask()
    cut.set_user_attr("worker", f"{socket.gethostname()}:{dead.pid}")
    live.set_user_attr("worker", f"{socket.gethostname()}:{os.getpid()}")
    assert fail_stale(study) == 1
    states = {t.number: t.state for t in study.get_trials()}
    assert states == {cut.number: STATES.FAIL, live.number: STATES.RUNNING}


def test_only_the_asked_channels_defaults_are_tried_first(tmp_path):
    caches = CACHES
    cands = space.candidates("native", {}, caches, [], ["llc"], [])
    study = open_study(tmp_path, Settings(name="s", channels=("llc",)))
    enqueue_defaults(study, cands, caches, ("llc",))
    assert [t.user_attrs["default_of"] for t in study.trials] == ["llc"]
    every = open_study(tmp_path / "every", Settings(name="e"))
    enqueue_defaults(every, cands, caches)
    assert {"l2", "llc"} <= {t.user_attrs["default_of"] for t in every.trials}


def test_a_worst_found_that_is_a_channels_default_is_one_row_the_defaults():
    from xtalk.search.confirm import FOUND, confirmation_plan
    cands = space.candidates("native", {}, CACHES, ["cache_thrash"], [], [])
    neighbour = {"bench": "cache_thrash", "params": {"size": 1 << 20}, "host": False, "instances": 1}
    plan = confirmation_plan("native", {}, neighbour, cands, CACHES, default_of="l2")
    assert FOUND not in [e["name"] for e in plan]
    assert [(e["name"], e["role"]) for e in plan if e["role"] == "found"] == [("l2", "found")]
    other = confirmation_plan("native", {}, neighbour, cands, CACHES)
    assert [e["name"] for e in other if e["role"] == "found"] == [FOUND]


def test_a_host_stressor_found_is_confirmed_as_a_host_stressor():
    from xtalk.search.confirm import FOUND, confirmation_plan
    cands = space.candidates("qemu", {}, CACHES, ["steal"], [], [])
    neighbour = {"bench": "steal", "params": {"steal_us": 1000.0, "period_us": 10000.0}, "host": True, "instances": 1}
    (found,) = [e for e in confirmation_plan("qemu", {}, neighbour, cands, CACHES) if e["name"] == FOUND]
    assert found["stressor"]["host"] is True and "instances" not in found["stressor"]


def test_the_confirmation_has_the_asked_channels_defaults_only_sized_for_a_probe_guest():
    """--channel llc membw memlat: cache_thrash loads l1, l2 and llc too, but the l1 and l2
    defaults are not confirmed; a 2 GiB LLC's membw default is sized down as in the study."""
    from xtalk.search.confirm import FOUND, confirmation_plan
    big = dict(CACHES, llc=2 << 30, shared=2 << 30)
    asked = ("llc", "membw", "memlat")
    cands = space.candidates("qemu", {}, big, [], list(asked), [])
    assert any({"l1", "l2"} & set(c.channels) for c in cands)  # a candidate that loads l1 or l2 too
    neighbour = {"bench": "memcpy", "params": {"size": 1 << 20}, "host": False, "instances": 1}
    plan = {e["name"]: e for e in confirmation_plan("qemu", {}, neighbour, cands, big, channels=asked)}
    assert set(plan) - {FOUND} == set(asked), list(plan)
    assert plan["membw"]["stressor"]["params"]["size"] == 1 << 30 and plan["membw"]["sized"]
    every = confirmation_plan("qemu", {}, neighbour, cands, big)
    assert {"l1", "l2"} <= {e["name"] for e in every}


def test_the_importances_caveat_goes_to_the_report_not_to_stderr(recwarn):
    """Optuna warns when a parameter has ranges of under 2 trials (a 10-trial search over
    three benches): the caveat is kept beside the importances, and nothing is warned."""
    import optuna
    from xtalk.search.confirm import importances
    study = optuna.create_study(direction="maximize", sampler=optuna.samplers.RandomSampler(seed=1))
    for _ in range(6):
        trial = study.ask()
        bench = trial.suggest_categorical("bench", ["a", "b", "c"])
        study.tell(trial, trial.suggest_float(f"{bench}.size", 1, 100, log=True))
    imp = importances(study)
    assert imp["values"] and "under 2 trials in some ranges of" in imp["reason"], imp
    assert not [w for w in recwarn if issubclass(w.category, UserWarning)]
