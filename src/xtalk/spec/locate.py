"""Find the line of a field in TOML text, so spec errors can say where they are.

A light scanner, not a parser: it follows table headers ([a.b], [[a]]) and `key =`
lines. It answers the line of the key itself, or of the nearest enclosing table or
inline-table key, or None. Multi-line strings and arrays are not tracked.
"""
from __future__ import annotations

import re

_KEY_PART = re.compile(r'\s*("(?:[^"\\]|\\.)*"|\'[^\']*\'|[A-Za-z0-9_-]+)\s*')


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


def locate_line(text: str, loc: tuple) -> int | None:
    path = tuple(loc)
    header: tuple = ()
    array_counts: dict[tuple, int] = {}
    best, best_len = None, 0
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("[["):
            name = split_key(stripped[2:stripped.find("]]")])
            array_counts[name] = array_counts.get(name, -1) + 1
            header = name + (array_counts[name],)
            full = header
        elif stripped.startswith("["):
            header = split_key(stripped[1:stripped.find("]")])
            full = header
        else:
            m = re.match(r'^((?:"[^"]*"|\'[^\']*\'|[A-Za-z0-9_.\- ])+?)\s*=', stripped)
            if not m:
                continue
            full = header + split_key(m.group(1))
        if full == path:
            return number
        if path[: len(full)] == full and len(full) > best_len:
            best, best_len = number, len(full)
    return best
