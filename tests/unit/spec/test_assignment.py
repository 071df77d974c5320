"""KEY=VALUE items of the command line, read once for --set and --parser."""
from __future__ import annotations

import pytest

from xtalk.spec.assignment import parse_assignment


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
    assert parse_assignment(item) is None
