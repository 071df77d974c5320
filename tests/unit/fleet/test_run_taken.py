"""A run a board sent is taken only as the attempt of the run it was asked for: a readable
meta.json of another run or attempt makes the board suspect instead of stopping the campaign."""
from xtalk.fleet.boards import Board

from tests.framework.store_data import meta, new_store


def sent_run(tmp_path):
    store = new_store(tmp_path, runs=("solo-r1", "solo-r2"))
    return store.start_run(meta("solo-r1")).path, store


def test_the_asked_for_run_is_taken(tmp_path):
    path, _ = sent_run(tmp_path)
    assert Board._not_taken(path, "solo-r1", 1) is None


def test_another_run_or_attempt_is_refused_with_both_named(tmp_path):
    path, _ = sent_run(tmp_path)
    why = Board._not_taken(path, "solo-r2", 1)
    assert "'solo-r1'" in why and "'solo-r2'" in why
    assert "attempt 3" in Board._not_taken(path, "solo-r1", 3)


def test_an_unreadable_meta_json_is_refused(tmp_path):
    path, _ = sent_run(tmp_path)
    (path / "meta.json").write_text("[1, 2]")
    assert "cannot be read" in Board._not_taken(path, "solo-r1", 1)
