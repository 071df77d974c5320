r"""Patterns a user gives (the `regex` parser's `sample`, `begin`, `end` and `fail`, from a
spec or `xtalk import --parser`), compiled with Google's RE2: it matches in time linear
in the line, whatever the pattern (Python's `re` backtracks: `(a+)+$` against 40 a's
and a `!` would run for days).

RE2's syntax (https://github.com/google/re2/wiki/Syntax) is Python's for what a console
needs: named groups `(?P<name>...)` (or `(?<name>...)`), classes, `\d \w \s \b`, repeats,
`(?i)`. A pattern RE2 cannot run is refused with RE2's reason; one Python's `re` would
take is told apart, with what RE2 lacks.
Caveats: no backreferences, look-arounds, atomic groups, possessive repeats nor `(?x)`;
`\Z` is written `\z`; a repeat counts at most 1000; `\d`, `\w`, `\s` and `\b` are ASCII
only (`\pN`, `\pL` match any script's digits and letters); a group name given twice is
refused (RE2 would fill only the first; names are read from the pattern's text, where a
`\Q...\E` quote is not told apart); a pattern whose program outgrows MAX_MEM is refused.
RE2 reads UTF-8: a line must encode to it (screen.py decodes console bytes with
replacement characters, so every console line does).
"""
from __future__ import annotations

import re
from collections import Counter

import re2

MAX_MEM = 8 << 20  # bytes one pattern's program and matching cache may take (RE2's default, stated)
_NAMED_GROUP = re.compile(r"(?<!\\)\(\?P?<(\w+)>")  # the opening of a named group, its name
_UNSUPPORTED = ("backreferences, look-arounds, atomic groups, possessive repeats and (?x) are not supported, "
               "and \\Z is written \\z")


def _options() -> re2.Options:
    options = re2.Options()
    options.max_mem = MAX_MEM
    options.log_errors = False  # the reason is raised, not also written to stderr
    return options


_OPTIONS = _options()


def compile_pattern(pattern: str) -> re2._Regexp:
    """`pattern` compiled with RE2; ValueError saying why it cannot be."""
    try:
        compiled = re2.compile(pattern, _OPTIONS)
    except re2.error as err:
        raise ValueError(_refusal(pattern, err.args[0].decode(errors="replace"))) from None
    except UnicodeEncodeError as err:
        raise ValueError(f"not UTF-8 text: {err.object[err.start:err.end]!r} at character {err.start}") from None
    twice = [name for name, count in Counter(_NAMED_GROUP.findall(pattern)).items() if count > 1]
    if twice:
        raise ValueError(f"the group `{twice[0]}` is named twice: name each group once (RE2 would fill only "
                         "the first)")
    return compiled


def _refusal(pattern: str, why: str) -> str:
    """Why RE2 refused `pattern`: a typo, or a Python regex RE2 cannot run."""
    try:
        re.compile(pattern)  # compiling only: matching is what can take exponential time
    except re.error:
        return f"not a regular expression: {why}"
    return f"not a pattern xtalk can run in linear time (RE2): {_UNSUPPORTED}: {why}"


def group_text(pattern: str, name: str) -> str | None:
    """The text of the named group `name` in `pattern` (None when it has none)."""
    opening = next((m for m in _NAMED_GROUP.finditer(pattern) if m[1] == name), None)
    if opening is None:
        return None
    i, depth, in_class = opening.end(), 1, False
    body = i
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 1
        elif in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            i += 1 if pattern[i + 1:i + 2] in ("]", "^") else 0
        elif c in "()":
            depth += 1 if c == "(" else -1
            if not depth:
                return pattern[body:i]
        i += 1
    return None
