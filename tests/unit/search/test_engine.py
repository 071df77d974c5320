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
from xtalk.search.engine import STATES, Settings, enqueue_defaults, fail_stale, open_study


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
    caches = {"l1": 32 << 10, "l2": 1 << 20, "llc": 16 << 20, "shared": 16 << 20}
    cands = space.candidates("native", {}, caches, [], ["llc"], [])
    study = open_study(tmp_path, Settings(name="s", channels=("llc",)))
    enqueue_defaults(study, cands, caches, ("llc",))
    assert [t.user_attrs["default_of"] for t in study.trials] == ["llc"]
    every = open_study(tmp_path / "every", Settings(name="e"))
    enqueue_defaults(every, cands, caches)
    assert {"l2", "llc"} <= {t.user_attrs["default_of"] for t in every.trials}
