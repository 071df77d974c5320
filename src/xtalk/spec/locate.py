"""Find the line of a field in TOML text, so spec errors can say where they are.

A light scanner, not a parser: it follows table headers ([a.b], [[a]]) and `key =`
lines. It answers the line of the key itself, or of the nearest enclosing table or
inline-table key, or of the first header inside the table (a table only a deeper header
makes: [a.b] for a), or None. `problem_at` makes a spec Problem with that line, line 1
(the file) where none is found: every problem names a line. Multi-line strings and
arrays are not tracked.
"""
from __future__ import annotations

import functools
import json
import re

from ..errors import Problem

_KEY_PART = re.compile(r'\s*("(?:[^"\\]|\\.)*"|\'[^\']*\'|[A-Za-z0-9_-]+)\s*')
_KEY_LINE = re.compile(r'^((?:"[^"]*"|\'[^\']*\'|[A-Za-z0-9_.\- ])+?)\s*=')


def split_key(key: str) -> tuple[str, ...]:
    parts, pos = [], 0
    while pos < len(key):
        m = _KEY_PART.match(key, pos)
        if not m:
            return tuple(p.strip() for p in key.split("."))
        token = m.group(1)
        parts.append(token[1:-1] if token[0] in "\"'" else token)
        pos = m.end()
        if pos < len(key) and key[pos] == ".":
            pos += 1
    return tuple(parts)


@functools.lru_cache(maxsize=8)
def _key_lines(text: str) -> tuple[dict[tuple, int], dict[tuple, int]]:
    """One scan of the text, for every problem of it (a spec with thousands of unknown keys
    is checked in time linear in its size): ({each key's or header's full path: its first
    line}, {each path a key or header lies under, itself included: the first such line})."""
    first: dict[tuple, int] = {}
    first_under: dict[tuple, int] = {}
    header: tuple = ()
    array_counts: dict[tuple, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("[["):
            name = split_key(stripped[2:stripped.find("]]")])
            array_counts[name] = array_counts.get(name, -1) + 1
            header = full = name + (array_counts[name],)
        elif stripped.startswith("["):
            header = full = split_key(stripped[1:stripped.find("]")])
        else:
            m = _KEY_LINE.match(stripped)
            if not m:
                continue
            full = header + split_key(m.group(1))
        first.setdefault(full, number)
        for depth in range(1, len(full) + 1):
            first_under.setdefault(full[:depth], number)
    return first, first_under


def locate_line(text: str, loc: tuple) -> int | None:
    path = tuple(loc)
    first, first_under = _key_lines(text)
    if path in first:
        return first[path]
    if path in first_under:
        return first_under[path]
    return next((first[path[:depth]] for depth in range(len(path) - 1, 0, -1) if path[:depth] in first), None)


def path_text(loc: tuple) -> str:
    """A field's path as a spec names it: stressors[0].params.size."""
    out = ""
    for part in loc:
        text = str(part) if str(part).isprintable() else json.dumps(part)  # a newline in a key stays on its line
        out += f"[{part}]" if isinstance(part, int) else (f".{text}" if out else text)
    return out


def problem_at(text: str, loc: tuple, message: str) -> Problem:
    """The problem of the field at loc, with its line (the file's first where none is found)."""
    return Problem(path_text(loc), message, locate_line(text, loc) or 1)


def _nesting(line: str, depth: int, limit: int) -> tuple[int, bool]:
    """(depth of arrays and inline tables open after this line, whether it went past
    limit: more open, or a dotted key of more than limit dots)."""
    quote, escaped, dots = None, False, 0  # inside a string (its quote), after a backslash in it
    for char in line:
        if quote:
            if escaped:
                escaped = False
            elif char == "\\" and quote == '"':
                escaped = True
            elif char == quote:
                quote = None
        elif char in "\"'":
            quote = char
        elif char == "#":
            break
        elif char == ".":
            dots += 1
        elif char in "=,[]{}":
            depth += {"[": 1, "{": 1, "]": -1, "}": -1}.get(char, 0)
            dots = 0
        if depth > limit or dots > limit:
            return depth, True
    return depth, False


def deep_line(text: str, limit: int) -> int | None:
    """The first line where arrays and inline tables open more than limit deep, or a key
    has more than limit dots (None: none). Read before the TOML parser, which recurses
    into nested arrays and tables and takes quadratic time over the parts of a key."""
    depth = 0
    for number, line in enumerate(text.splitlines(), 1):
        depth, exceeded = _nesting(line, depth, limit)
        if exceeded:
            return number
    return None


def field_at(text: str, number: int, limit: int = 60) -> str:
    """The field a line sets, as written (its table's header, then its key), cut to limit."""
    lines = text.splitlines()[:number]
    line = lines[-1].strip() if lines else ""
    header = next((h.strip().strip("[]").strip() for h in reversed(lines[:-1]) if h.strip().startswith("[")), "")
    if line.startswith("["):
        field = line.strip("[]").strip()
    else:
        field = ".".join(p for p in (header, line.partition("=")[0].strip()) if p)
    return field if len(field) <= limit else field[:limit - 3] + "..."

