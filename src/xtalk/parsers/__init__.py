"""Output parsers, one per module of this package (base.py says what a parser is).

The registry imports every module here and keeps each OutputParser subclass by its
`name`: adding a parser is adding one file (plus its test). A guest picks its parser
with `output = "<name>"` in the spec (default `xt`) and passes it options in `[….parser]`.
"""
from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import ValidationError

from ..plugins import subclasses_by
from .base import Event, OutputParser
from .screen import console_lines

__all__ = ["Event", "OutputParser", "registry", "get", "create", "option_problems", "parse_log"]


@cache
def registry() -> dict[str, type[OutputParser]]:
    return subclasses_by(__name__, __path__, OutputParser, "name", skip=("base",))


def get(name: str) -> type[OutputParser]:
    """The parser called `name`; KeyError (with the known names) when there is none."""
    try:
        return registry()[name]
    except KeyError:
        raise KeyError(f"no output parser {name!r} (known: {', '.join(registry())})") from None


def create(name: str, run_id: str | None = None, options: dict[str, Any] | None = None) -> OutputParser:
    return get(name)(run_id, options)


def option_problems(name: str, options: dict[str, Any]) -> list[tuple[tuple, str]]:
    """Problems with a parser's options as (path inside the options, message)."""
    try:
        get(name).Options.model_validate(options)
    except ValidationError as err:
        return [(tuple(e["loc"]), "unknown option for this parser" if e["type"] == "extra_forbidden"
                 else e["msg"]) for e in err.errors()]
    return []


def parse_log(text: str, output: str = "xt", run_id: str | None = None,
              options: dict[str, Any] | None = None) -> OutputParser:
    """A whole console log through one parser, split as a live console is (screen.py; no
    arrival times: t 0 for foreign parsers)."""
    parser = create(output, run_id, options)
    for line in console_lines(text):
        parser.feed(line, 0)
    return parser
