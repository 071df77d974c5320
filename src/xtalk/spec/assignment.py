"""`KEY=VALUE` items of the command line (`--set` of run, spec, calibrate, channels and
search; `xtalk import --config` and `--parser`): the key is what comes before the first `=`, stripped; the
value is read as a TOML value (`3`, `true`, `[1, 2]`, `{a = 1}`, `"text"`), and text that
is no TOML value (a bare word) is taken as the string it is. An item is one line: a
newline or other control character in it is refused (TOML read what came before it as the
value and dropped the rest without a word; the stored spec.toml records each --set as a
comment line, which a newline would end). Each caller says what the key means and how a
malformed item is reported (its own flag and example).
"""
from __future__ import annotations

import tomllib


class BadAssignment(ValueError):
    """An item that is no `KEY=VALUE` on one line; its text says why."""


def parse_assignment(item: str) -> tuple[str, object]:
    """(key, value) of `KEY=VALUE`; BadAssignment when there is no `=`, nothing before it, or
    a newline or other control character in it."""
    key, sep, text = item.partition("=")
    if not sep or not key.strip():
        raise BadAssignment("not KEY=VALUE")
    if any(not c.isprintable() and c != "\t" for c in item):
        raise BadAssignment("holds a newline or another control character: give one value on one line "
                            "(an array or table as TOML writes it inline: [1, 2], {a = 1})")
    try:
        value = tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        value = text
    return key.strip(), value
