"""host.metadata.tool_versions: the tools asked for run at once, each once per process;
a missing tool is None."""
from __future__ import annotations

import pytest

from xtalk.host import metadata


def waits_for(mine: str, other: str) -> list[str]:
    """A tool that says whether the other one had started while it ran (5 s at most)."""
    return ["sh", "-c", f"echo >> {mine}; for i in $(seq 100); do [ -e {other} ] && break; sleep 0.05; done; "
            f"[ -e {other} ] && echo 'saw the other' || echo alone"]


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    monkeypatch.setattr(metadata, "_versions", {})


def test_the_tools_run_at_once_and_once_each(tmp_path):
    a, b = waits_for(tmp_path / "a", tmp_path / "b"), waits_for(tmp_path / "b", tmp_path / "a")
    assert metadata.tool_versions([a, b, a]) == ["saw the other"] * 3
    assert metadata.tool_version(a) == "saw the other"
    assert (tmp_path / "a").read_text() == "\n"  # started once


def test_a_missing_tool_is_none_and_stderr_is_read_when_stdout_is_empty(tmp_path):
    assert metadata.tool_versions([["xtalk-no-such-tool", "--version"], ["sh", "-c", "echo v1 >&2"]]) == [None, "v1"]
