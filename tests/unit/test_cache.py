"""cache.py: facts kept from one command to the next under a key; the file holds the last
KEEP keys; a broken or unwritable cache is no fact, not an error."""
from __future__ import annotations

from xtalk import cache


def test_a_value_is_recalled_under_its_key_and_old_keys_leave(tmp_path, monkeypatch):
    monkeypatch.setenv("XTALK_CACHE", str(tmp_path / "cache"))
    for i in range(cache.KEEP + 5):
        cache.remember("facts.json", f"key {i}", i)
    assert cache.recall("facts.json", f"key {cache.KEEP + 4}") == cache.KEEP + 4
    assert cache.recall("facts.json", "key 5") == 5 and cache.recall("facts.json", "key 4") is None
    cache.remember("facts.json", "key 5", "again")  # kept anew: now the newest
    cache.remember("facts.json", "key new", 1)
    assert cache.recall("facts.json", "key 5") == "again" and cache.recall("facts.json", "key 6") is None


def test_a_broken_or_unwritable_cache_keeps_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("XTALK_CACHE", str(tmp_path / "cache"))
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "facts.json").write_text("[1, 2")
    assert cache.recall("facts.json", "key") is None
    cache.remember("facts.json", "key", 7)
    assert cache.recall("facts.json", "key") == 7
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("XTALK_CACHE", str(tmp_path / "file" / "cache"))  # under a file: no directory
    cache.remember("facts.json", "key", 7)
    assert cache.recall("facts.json", "key") is None


def test_a_program_key_changes_with_its_build(tmp_path):
    program = tmp_path / "prog"
    program.write_text("one")
    first = cache.program_key(program)
    program.write_text("two!")
    assert first and cache.program_key(program) not in (None, first)
    assert cache.program_key(tmp_path / "missing") is None


def test_a_cache_file_of_the_wrong_kind_is_no_fact_and_is_replaced(tmp_path, monkeypatch):
    """Issue 43: a directory in place of a cache file stopped commands (exit 3); /dev/zero
    behind a symlink was read until memory ran short."""
    monkeypatch.setenv("XTALK_CACHE", str(tmp_path / "cache"))
    where = tmp_path / "cache" / "facts.json"
    where.mkdir(parents=True)
    assert cache.recall("facts.json", "key") is None
    cache.remember("facts.json", "key", 7)
    assert where.is_file() and cache.recall("facts.json", "key") == 7
    where.unlink()
    where.symlink_to("/dev/zero")
    assert cache.recall("facts.json", "key") is None  # not followed
    cache.remember("facts.json", "key", 8)
    assert not where.is_symlink() and cache.recall("facts.json", "key") == 8
    where.write_text('{"key": "' + "x" * cache.MAX_BYTES + '"}')  # larger than any cache file is
    assert cache.recall("facts.json", "key") is None
