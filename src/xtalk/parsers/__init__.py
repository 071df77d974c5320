"""Output parsers, one per module of this package (base.py says what a parser is).

Each parser registers itself by its `name` (`@PARSERS.register`, xtalk.plugins, which
imports every module here): adding a parser is adding one file (plus its test). A guest picks its parser
with `output = "<name>"` in the spec (default `xt`) and passes it options in `[….parser]`.

May import: host, results, remote, cache, plugins, files, tty, signals, errors, controls (the layers
below it, pyproject.toml).
"""
from __future__ import annotations

from typing import Any

from ..plugins import PARSERS
from .base import Event, OutputParser
from .screen import console_lines

__all__ = ["Event", "OutputParser", "registry", "get", "create", "option_problems", "parse_log"]


def registry() -> dict[str, type[OutputParser]]:
    return PARSERS.by_name()


def get(name: str) -> type[OutputParser]:
    """The parser called `name`; KeyError (with the known names) when there is none."""
    cls = PARSERS.get(name)
    if cls is None:
        raise KeyError(PARSERS.unknown(name))
    return cls


def create(name: str, run_id: str | None = None, options: dict[str, Any] | None = None) -> OutputParser:
    return get(name)(run_id, options)


def option_problems(name: str, options: dict[str, Any]) -> list[tuple[tuple, str]]:
    """Problems with a parser's options as (path inside the options, message)."""
    get(name)
    return PARSERS.option_problems(name, options)


def parse_log(text: str, output: str = "xt", run_id: str | None = None,
              options: dict[str, Any] | None = None) -> OutputParser:
    """A whole console log through one parser, split as a live console is (screen.py; no
    arrival times: t 0 for foreign parsers)."""
    parser = create(output, run_id, options)
    for line in console_lines(text):
        parser.feed(line, 0)
    return parser
