"""search/journal.py: a search's journal with a torn or garbage tail is cut to its last whole
record (the rest kept aside and said) and the search resumes; a journal gone or empty beside
the search's stored campaigns, or a settings.json that does not read, is refused by name
(issue 43: each ended in "unexpected JSONDecodeError ... (a bug)", or silently started over)."""
from __future__ import annotations

import re

import pytest

from xtalk.errors import SpecError
from xtalk.search import journal
from xtalk.search.engine import Settings, open_study

SETTINGS = Settings(name="s")


def two_trials(directory):
    study = open_study(directory, SETTINGS)
    for value in (1.0, 2.0):
        study.tell(study.ask(), value)
    return directory / journal.JOURNAL


@pytest.mark.parametrize("tail", [b'{"op_code": 4, "worker_id": "a", "trial', b"\x00\xff\xfe garbage\n", b"[1, 2]\n",
                                  b'{"op_code": 99, "worker_id": "x"}\n'])  # 99: Optuna failed an assertion
def test_a_torn_or_garbage_tail_is_cut_kept_aside_and_the_search_resumes(tmp_path, tail):
    log = two_trials(tmp_path)
    whole = log.read_bytes()
    log.write_bytes(whole + tail)
    said: list[str] = []
    study = open_study(tmp_path, SETTINGS, say=said.append)
    now = log.read_bytes()
    assert [t.value for t in study.trials] == [1.0, 2.0] and now.startswith(whole)
    assert tail not in now and journal.whole_length(now) == len(now)
    (aside,) = tmp_path.glob(f"{journal.JOURNAL}.cut-*")
    assert aside.read_bytes() == tail and f"its last {len(tail)} bytes were no whole record" in said[0]
    study.tell(study.ask(), 3.0)  # it goes on
    assert [t.value for t in open_study(tmp_path, SETTINGS, say=said.append).trials] == [1.0, 2.0, 3.0]


def test_a_lost_or_emptied_journal_beside_stored_trials_is_refused(tmp_path):
    log = two_trials(tmp_path)
    log.write_bytes(b"")
    earlier = ["spec-search-s-t0a-20261129-060000"]
    with pytest.raises(SpecError, match="is empty, but 1 of its campaigns are stored"):
        open_study(tmp_path, SETTINGS, earlier)
    log.unlink()
    with pytest.raises(SpecError, match="is gone, but 1 of its campaigns are stored"):
        open_study(tmp_path, SETTINGS, earlier)
    assert not open_study(tmp_path, SETTINGS).trials  # nothing stored: a new search


def test_a_journal_that_is_no_regular_file_is_refused_unread(tmp_path):
    import os
    os.mkfifo(tmp_path / journal.JOURNAL)  # read whole, a FIFO nobody writes would never end
    with pytest.raises(SpecError, match="journal.log is a FIFO, not a search journal of its own"):
        open_study(tmp_path, SETTINGS, ["spec-search-s-t0a-20261129-060000"])
    (tmp_path / journal.JOURNAL).unlink()
    outside = tmp_path / "outside.txt"
    outside.write_text("a file elsewhere\n")  # no whole record: healing through a link would empty it
    for how, kind in ((os.symlink, "a symbolic link"), (os.link, "a hard link (2 names)")):
        how(outside, tmp_path / journal.JOURNAL)
        with pytest.raises(SpecError, match=f"journal.log is {re.escape(kind)}, not a search journal of its own"):
            open_study(tmp_path, SETTINGS, ["spec-search-s-t0a-20261129-060000"])
        assert outside.read_text() == "a file elsewhere\n"
        (tmp_path / journal.JOURNAL).unlink()
    (tmp_path / journal.JOURNAL).mkdir()
    with pytest.raises(SpecError, match="journal.log is a directory, not a search journal of its own"):
        open_study(tmp_path, SETTINGS, ["spec-search-s-t0a-20261129-060000"])


def test_a_dangling_link_in_place_of_the_settings_is_replaced_and_of_the_journal_refused(tmp_path):
    import os
    target = tmp_path.parent / f"{tmp_path.name}-outside.json"
    search = tmp_path / "s"
    search.mkdir()
    os.symlink(target, search / journal.SETTINGS)
    open_study(search, SETTINGS)
    assert not target.exists() and not (search / journal.SETTINGS).is_symlink()  # written in its place
    assert journal.read_settings(search)["name"] == "s"
    os.unlink(search / journal.JOURNAL)
    os.symlink(target, search / journal.JOURNAL)
    with pytest.raises(SpecError, match="journal.log is a symbolic link"):
        open_study(search, SETTINGS)
    assert not target.exists()


def test_a_garbled_settings_file_is_refused_by_name(tmp_path):
    two_trials(tmp_path)
    (tmp_path / journal.SETTINGS).write_text('{"name": "s", "tr')
    with pytest.raises(SpecError, match="settings.json does not read"):
        open_study(tmp_path, SETTINGS)


def test_the_searchs_own_campaigns_are_found_and_no_other_searchs(tmp_path):
    for name in ("spec-search-s-t0a-20261129-060000", "spec-search-s-alone-20261129-055900",
                 "spec-search-s-2-t0a-20261129-060000", "spec-search-s-confirm-20261129-061000", "spec-20261129-0"):
        (tmp_path / name).mkdir()
    assert journal.trial_campaigns(tmp_path, "spec", "s") == ["spec-search-s-alone-20261129-055900",
                                                              "spec-search-s-t0a-20261129-060000"]
