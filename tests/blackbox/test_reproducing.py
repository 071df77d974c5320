"""docs/reproducing.md cannot go stale quietly: every study spec in experiments/ is mapped
there, every spec it names exists, and every `xtalk run` line of its command blocks passes
`xtalk spec check` with the same arguments (a run's own flags, such as --report, dropped)."""
from __future__ import annotations

import re
import shlex

import pytest

from tests.framework.cli import xtalk
from tests.framework.repo import ROOT

DOC = ROOT / "docs" / "reproducing.md"
RUN_ONLY_FLAGS = {"--report", "--resume"}


def doc_text() -> str:
    return DOC.read_text()


def command_lines() -> list[str]:
    blocks = re.findall(r"^```sh\n(.*?)^```", doc_text(), re.M | re.S)
    return [line for block in blocks for line in block.splitlines() if line.startswith("xtalk run ")]


def test_every_study_spec_is_mapped_and_every_named_spec_exists():
    named = set(re.findall(r"experiments/([\w.-]+\.toml)", doc_text()))
    present = {p.name for p in (ROOT / "experiments").glob("*.toml")}
    assert named - present == set(), "specs the page names that do not exist"
    assert present - named == set(), "specs in experiments/ the page does not map"


def test_the_page_has_commands_for_every_study():
    studies = {line.split()[2] for line in command_lines()}
    assert len(command_lines()) >= 15 and {"experiments/seed004_colouring.toml",
                                           "experiments/seed003_benchmarks.toml"} <= studies


@pytest.mark.parametrize("line", command_lines())
def test_each_command_passes_spec_check(line):
    spec, *args = [a for a in shlex.split(line)[2:] if a not in RUN_ONLY_FLAGS]
    res = xtalk("spec", "check", ROOT / spec, *args)
    assert res.returncode == 0, f"{line}\n{res.stderr}"
