"""`KEY=VALUE` items of the command line (`--set` of run, spec, calibrate, channels and
search; `xtalk import --config` and `--parser`): the key is what comes before the first `=`, stripped; the
value is read as a TOML value (`3`, `true`, `[1, 2]`, `{a = 1}`, `"text"`), and text that
is no TOML value (a bare word) is taken as the string it is. Each caller says what the
key means and how a malformed item is reported (its own flag and example).
"""
from __future__ import annotations

import tomllib


def parse_assignment(item: str) -> tuple[str, object] | None:
    """(key, value) of `KEY=VALUE`; None when there is no `=` or nothing before it."""
    key, sep, text = item.partition("=")
    if not sep or not key.strip():
        return None
    try:
        value = tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        value = text
    return key.strip(), value
