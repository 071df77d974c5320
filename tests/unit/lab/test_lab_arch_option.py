"""`xtalk lab --arch` takes the spellings host/arches.py knows for an arch (aarch64, amd64), as
`xtalk images build` does, and refuses others in argparse's one line."""
from __future__ import annotations

import pytest

from xtalk.cli.main import build_parser


@pytest.mark.parametrize(("given", "lab"), [("arm64", "arm64"), ("aarch64", "arm64"), ("x86_64", "x86_64"),
                                            ("amd64", "x86_64")])
def test_an_arch_alias_names_its_lab(given, lab):
    for action in (["start", "xen"], ["stop"], ["build", "xen"]):
        assert build_parser().parse_args(["lab", *action, "--arch", given]).arch == lab


def test_an_unknown_arch_is_refused_with_the_choices(capsys):
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(["lab", "stop", "--arch", "sparc"])
    assert stop.value.code == 2
    assert "invalid choice: 'sparc' (choose from 'arm64', 'x86_64')" in capsys.readouterr().err
