"""artifacts.build: make runs once per target in a process, and the host's own programs
(HOST_TARGETS) are made in one call; a companion that fails to build does not fail the
target asked for, and a target that fails says so with make's output. make_ahead's call
is that one call, waited for before any other make (a later call ahead too); settle() stops
it with what it runs."""
from __future__ import annotations

import time

import pytest

from xtalk.images import artifacts
from xtalk.errors import InfrastructureError

MAKEFILE = """\
catalogue native posix other:
\t@echo "$(MAKECMDGOALS)" >> calls.txt
\t@if [ -e slow ]; then sleep $$(cat slow); fi
\t@if [ $@ = other ] && [ ! -e out/posix ]; then echo "posix is still being made"; exit 1; fi
\t@if [ -e fail-$@ ]; then echo "cannot build $@"; exit 1; fi
\t@mkdir -p out && touch out/$@
"""


@pytest.fixture
def tree(tmp_path, monkeypatch):
    (tmp_path / "Makefile").write_text(MAKEFILE)
    monkeypatch.setenv("XTALK_ROOT", str(tmp_path))
    artifacts.source_root.cache_clear()
    monkeypatch.setattr(artifacts, "_made", set())
    yield tmp_path
    artifacts.settle()
    artifacts.source_root.cache_clear()


def calls(tree) -> list[str]:
    return (tree / "calls.txt").read_text().splitlines()


def test_the_host_programs_are_made_in_one_call_and_each_target_once(tree):
    assert artifacts.build("native", "out/native") == tree / "out/native"
    assert artifacts.build("catalogue", "out/catalogue") == tree / "out/catalogue"
    assert artifacts.build("native", "out/native").is_file()
    assert calls(tree) == ["catalogue native posix"] * 3  # one make call, its three targets' recipes
    artifacts.build("other", "out/other")
    artifacts.build("other", "out/other")
    assert calls(tree)[3:] == ["other"]


def test_a_companion_that_fails_leaves_the_target_asked_for_built(tree):
    (tree / "fail-posix").touch()
    assert artifacts.build("native", "out/native").is_file()
    with pytest.raises(InfrastructureError, match=r"'make posix' failed:\ncannot build posix"):
        artifacts.build("posix", "out/posix")


def test_the_call_made_ahead_is_the_one_call_and_waited_for_before_any_other(tree):
    (tree / "slow").write_text("0.3")
    artifacts.make_ahead()
    assert artifacts.build("other", "out/other").is_file()  # its recipe fails while posix is not made
    assert artifacts.build("native", "out/native").is_file()
    assert calls(tree) == ["catalogue native posix"] * 3 + ["other"]


def test_a_second_call_ahead_follows_the_first_and_spares_build_its_own(tree):
    (tree / "slow").write_text("0.3")
    artifacts.make_ahead()
    artifacts.make_ahead(("other", "native"))  # native: made by the first by then
    assert artifacts.build("other", "out/other").is_file() and artifacts.build("native", "out/native").is_file()
    artifacts.make_ahead(("other",))  # nothing left to make: no call
    assert artifacts._ahead is None
    assert calls(tree) == ["catalogue native posix"] * 3 + ["other"]


def test_settle_stops_the_call_made_ahead_and_what_it_runs(tree):
    (tree / "slow").write_text("30")
    artifacts.make_ahead()
    ahead, _ = artifacts._ahead
    time.sleep(0.3)  # make has started the first recipe's sleep
    began = time.monotonic()
    artifacts.settle()
    assert time.monotonic() - began < 10 and ahead.returncode is not None and artifacts._ahead is None
    assert not (tree / "out").exists()  # nothing made


def test_a_failed_call_ahead_leaves_build_to_say_what_failed(tmp_path, monkeypatch):
    monkeypatch.setenv("XTALK_ROOT", str(tmp_path / "missing"))
    artifacts.source_root.cache_clear()
    monkeypatch.setattr(artifacts, "_made", set())
    artifacts.make_ahead()  # make fails at once in a directory that is not there
    with pytest.raises(InfrastructureError, match=r"building out/native with 'make native' failed"):
        artifacts.build("native", "out/native")
    assert artifacts._made == set()
    artifacts.source_root.cache_clear()
