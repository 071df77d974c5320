"""artifacts.build: make runs once per target in a process, and the host's own programs
(HOST_TARGETS) are made in one call; a companion that fails to build does not fail the
target asked for, and a target that fails says so with make's output."""
from __future__ import annotations

import pytest

from xtalk import artifacts
from xtalk.errors import InfrastructureError

MAKEFILE = """\
catalogue native posix other:
\t@echo "$(MAKECMDGOALS)" >> calls.txt
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
