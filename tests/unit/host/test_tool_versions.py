"""host.metadata.tool_versions: the tools asked for run at once, each once per process and
kept from one process to the next for the same program file;
a missing tool is None."""
from __future__ import annotations

import pytest

from xtalk.host import metadata


def waits_for(mine: str, other: str) -> list[str]:
    """A tool that says whether the other one had started while it ran (5 s at most)."""
    return ["sh", "-c", f"echo >> {mine}; for i in $(seq 100); do [ -e {other} ] && break; sleep 0.05; done; "
            f"[ -e {other} ] && echo 'saw the other' || echo alone"]


@pytest.fixture(autouse=True)
def fresh(monkeypatch, tmp_path):
    monkeypatch.setattr(metadata, "_versions", {})
    monkeypatch.setenv("XTALK_CACHE", str(tmp_path / "cache"))


def counting_tool(tmp_path, version: str):
    """A program that prints `version` and counts its calls."""
    tool, calls = tmp_path / "tool", tmp_path / "calls"
    tool.write_text(f"#!/bin/sh\necho x >> {calls}\necho '{version}'\n")
    tool.chmod(0o755)
    return str(tool), lambda: len(calls.read_text().splitlines()) if calls.exists() else 0


def test_the_tools_run_at_once_and_once_each(tmp_path):
    a, b = waits_for(tmp_path / "a", tmp_path / "b"), waits_for(tmp_path / "b", tmp_path / "a")
    assert metadata.tool_versions([a, b, a]) == ["saw the other"] * 3
    assert metadata.tool_version(a) == "saw the other"
    assert (tmp_path / "a").read_text() == "\n"  # started once


def test_a_missing_tool_is_none_and_stderr_is_read_when_stdout_is_empty(tmp_path):
    assert metadata.tool_versions([["xtalk-no-such-tool", "--version"], ["sh", "-c", "echo v1 >&2"]]) == [None, "v1"]


def test_a_version_is_kept_for_the_next_process_until_the_program_changes(tmp_path, monkeypatch):
    tool, calls = counting_tool(tmp_path, "tool 1.0")
    assert metadata.tool_version([tool, "--version"]) == "tool 1.0" and calls() == 1
    monkeypatch.setattr(metadata, "_versions", {})  # the next xtalk command
    assert metadata.tool_version([tool, "--version"]) == "tool 1.0" and calls() == 1
    assert metadata.tool_version([tool, "-V"]) == "tool 1.0" and calls() == 2  # other arguments: asked
    counting_tool(tmp_path, "tool 2.0.1")  # upgraded: another file
    monkeypatch.setattr(metadata, "_versions", {})
    assert metadata.tool_version([tool, "--version"]) == "tool 2.0.1" and calls() == 3


def test_a_tool_that_says_nothing_is_asked_again(tmp_path, monkeypatch):
    tool, calls = counting_tool(tmp_path, "")
    assert metadata.tool_version([tool]) is None
    monkeypatch.setattr(metadata, "_versions", {})
    assert metadata.tool_version([tool]) is None and calls() == 2
