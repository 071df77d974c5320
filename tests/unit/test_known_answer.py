"""The known-answer record (tests/framework/known_answer.py) and the watch of other work beside
a test that runs alone (tests/framework/other_work.py): a voided test is kept with what xtalk
said, which must carry its numbers; a busy process beside the watch is named."""
from __future__ import annotations

import subprocess
import time

import pytest

from tests.framework.known_answer import RECORD_ENV, VOIDED, machine_voids, recorded, voided
from tests.framework.other_work import OtherWork, summary


def test_a_voided_known_answer_is_recorded_with_what_xtalk_said(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(RECORD_ENV, str(tmp_path))
    voided("cannot measure here: CPU 0 ran other work 31 % of each run")
    (entry,) = recorded(VOIDED)
    assert entry["why"].endswith("31 % of each run") and "test_a_voided_known_answer" in entry["test"]
    assert "known answer voided by the machine: " in capsys.readouterr().out
    with pytest.raises(AssertionError, match="carries no number"):
        voided("cannot measure here")
    assert len(recorded(VOIDED)) == 1


def test_only_a_machine_line_that_cannot_answer_for_the_metric_voids_it():
    cannot = {"state": "cannot", "text": "cannot measure qsort here: ...", "cannot_metrics": ["qsort"]}
    assert machine_voids(cannot, "qsort") == cannot["text"]
    assert machine_voids(cannot, "hidden_latency") is None
    assert machine_voids(dict(cannot, state="doubtful"), "qsort") is None
    assert machine_voids(dict(cannot, cannot_metrics=[]), "hidden_latency") == cannot["text"]


def test_a_busy_process_beside_the_watch_is_named():
    watch = OtherWork()
    spinner = subprocess.Popen(["python3", "-c", "import time\nt=time.time()\nwhile time.time()-t<1.5: pass"])
    try:
        spinner.wait(timeout=30)
        time.sleep(0.05)
        # the spinner has ended: a process gone before the end is not named, its time is the CPUs'
        record = watch.finish()
        assert all(p["pid"] != spinner.pid for p in record["busiest"])
        assert sum(c["busy_pct"] for c in record["cpus"].values()) > 50, record
    finally:
        spinner.kill()
    watch = OtherWork()
    spinner = subprocess.Popen(["python3", "-c", "while True: pass"])
    try:
        time.sleep(1.5)
        record = watch.finish()
    finally:
        spinner.kill()
        spinner.wait()
    named = [p for p in record["busiest"] if p["pid"] == spinner.pid]
    assert named and named[0]["pct"] > 50, record
    assert f"PID {spinner.pid} (python3" in summary(record) and "taken by the machine's own hypervisor" in summary(record)
