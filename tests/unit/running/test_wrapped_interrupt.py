"""A Ctrl-C that a library turns into an error of its own while a run measures (pydantic's
validator, built at the run's first event, comes out as a SchemaError when the signal
lands inside its build): the run is stored as interrupted and the campaign ends as
interrupted, not as a run that failed with "a bug" (exit 3 instead of 130). A real
native campaign in this process; the signal is raised by xtalk's own handler."""
from __future__ import annotations

import signal

import pytest

from tests.framework.specs import MEASURER_ONLY
from xtalk import signals
from xtalk.results import records
from xtalk.results.store import CampaignStore
from xtalk.running.campaign import run_campaign
from xtalk.running.runner import INTERRUPTED
from xtalk.spec.load import parse_campaign


@pytest.fixture(autouse=True)
def built(native_bench):
    return native_bench


def test_a_ctrl_c_a_library_wraps_while_a_run_measures_stores_the_run_as_interrupted(tmp_path, monkeypatch):
    real_record = records.event_record

    def wrapping_build(kind, host_ns, fields):
        if kind == "measurer_begin":
            try:
                signals.interrupt(signal.SIGINT, None)
            except KeyboardInterrupt:
                raise RuntimeError('Error building "tagged-union" validator') from None  # as pydantic-core's
        return real_record(kind, host_ns, fields)
    monkeypatch.setattr(records, "event_record", wrapping_build)
    text = MEASURER_ONLY.format(name="wrapped", backend="native", bench="qsort", rest="")
    with pytest.raises(KeyboardInterrupt):
        run_campaign(*parse_campaign(text, "spec.toml"), text, "spec.toml", tmp_path)
    store = CampaignStore(next(tmp_path.glob("wrapped-*")))
    assert [(r["run_id"], r["status"], r["reason"]) for r in store.runs()] == [("solo-r1", "interrupted", INTERRUPTED)]


def test_the_same_error_with_no_interrupt_is_the_run_s_error_and_stops_the_campaign(tmp_path, monkeypatch):
    real_record = records.event_record

    def failing_build(kind, host_ns, fields):
        if kind == "measurer_begin":
            raise RuntimeError('Error building "tagged-union" validator')
        return real_record(kind, host_ns, fields)
    monkeypatch.setattr(records, "event_record", failing_build)
    text = MEASURER_ONLY.format(name="failing", backend="native", bench="qsort", rest="")
    with pytest.raises(Exception, match="a bug"):
        run_campaign(*parse_campaign(text, "spec.toml"), text, "spec.toml", tmp_path)
    store = CampaignStore(next(tmp_path.glob("failing-*")))
    [(status, reason)] = [(r["status"], r["reason"]) for r in store.runs()]
    assert status == "error" and "a bug" in reason, reason
