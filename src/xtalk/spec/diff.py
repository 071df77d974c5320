"""What changed between two raw specs (the dicts TOML gave, overrides applied): each
changed field as its dotted path, the way spec problems name fields (`run.duration_s`,
`stressors[0].bench`), with the old and new value where both are plain values. --resume
names them when it refuses a campaign whose spec changed.
Caveat: a list whose length changed is one change (the list's path), not one per entry."""
from __future__ import annotations

from typing import Any

from .suggest import shown

ABSENT = object()  # a key one side does not have


def changed_fields(old: Any, new: Any, path: str = "") -> list[tuple[str, Any, Any]]:
    """(dotted path, old value, new value) of every leaf that differs; a side without the
    key has ABSENT."""
    if isinstance(old, dict) and isinstance(new, dict):
        keys = list(new) + [k for k in old if k not in new]
        return [change for k in keys
                for change in changed_fields(old.get(k, ABSENT), new.get(k, ABSENT), f"{path}.{k}" if path else str(k))]
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [change for i, (a, b) in enumerate(zip(old, new)) for change in changed_fields(a, b, f"{path}[{i}]")]
    return [] if old == new else [(path, old, new)]


def _told(path: str, old: Any, new: Any) -> str:
    if old is ABSENT:
        return f"{path} added"
    if new is ABSENT:
        return f"{path} removed"
    if isinstance(old, (dict, list)) or isinstance(new, (dict, list)):
        return path
    return f"{path}: {shown(old, 20)} -> {shown(new, 20)}"


def describe_changes(old: dict, new: dict, shown_at_most: int = 3) -> str:
    """'run.duration_s: 5 -> 10, stressors[0].bench: "membw" -> "memcpy" and 2 more', or
    '' when the values are the same."""
    changes = [_told(*c) for c in changed_fields(old, new)]
    more = len(changes) - shown_at_most
    return ", ".join(changes[:shown_at_most]) + (f" and {more} more" if more > 0 else "")
