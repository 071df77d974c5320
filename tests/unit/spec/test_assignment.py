"""KEY=VALUE items of the command line, read once for --set, --config and --parser; an item
with a newline or another control character is refused whole (issue 58: TOML read what came
before a newline and dropped the rest without a word)."""
from __future__ import annotations

import pytest

from tests.framework.cli import xtalk
from xtalk.spec.assignment import BadAssignment, parse_assignment


@pytest.mark.parametrize("item, expected", [
    ("run.repetitions=3", ("run.repetitions", 3)),
    (" run.repetitions = 3", ("run.repetitions", 3)),
    ("placement=same-core", ("placement", "same-core")),  # a bare word: the string as it is
    ("sample='lat: (?P<value>\\d+)'", ("sample", "lat: (?P<value>\\d+)")),  # a TOML literal string
    ("matrix={placement = [\"solo\"]}", ("matrix", {"placement": ["solo"]})),
    ("opts=", ("opts", "")),
    ("a=b=c", ("a", "b=c")),
])
def test_the_value_is_toml_or_the_text_itself(item, expected):
    assert parse_assignment(item) == expected


@pytest.mark.parametrize("item", ["repetitions", "=3", " =3"])
def test_an_item_without_a_key_is_refused(item):
    with pytest.raises(BadAssignment, match="^not KEY=VALUE$"):
        parse_assignment(item)


@pytest.mark.parametrize("item", ["run.repetitions=1\nrun.duration_s=99", "run.repetitions=1\r", "a=[1,\n2]",
                                  "name=x\x1b[2J", "name=x\u2028y"])
def test_an_item_with_a_newline_or_control_character_is_refused_not_cut(item):
    with pytest.raises(BadAssignment, match="newline or another control character: give one value on one line"):
        parse_assignment(item)
    assert parse_assignment("name=a\tb") == ("name", "a\tb")  # a tab is text


def test_the_cli_names_the_item_on_one_line_and_stores_nothing(tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text('name = "s"\ncpus = [0]\n[backend]\nkind = "native"\n[measurer]\nbench = "qsort"\n')
    res = xtalk("spec", "check", spec, "--set", "run.repetitions=1\nrun.duration_s=99")
    assert res.returncode == 2 and "--set run.repetitions=1 run.duration_s=99: holds a newline" in res.stderr, \
        res.stderr
    assert "Traceback" not in res.stderr
    res = xtalk("import", "x", "--output", "zephyr-latency-measure", "--config", "placement=solo\nx", "--out",
                tmp_path / "out", spec)
    assert res.returncode == 2 and "--config placement=solo x: holds a newline" in res.stderr, res.stderr
    assert not (tmp_path / "out").exists()
