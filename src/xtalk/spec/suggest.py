"""Wording of spec problems: a value shown as the TOML that gave it ('did you mean ...?'
for a misspelled name is errors.did_you_mean: the backend registry below the spec uses it too)."""
from __future__ import annotations

import json
from collections.abc import Sequence

from ..errors import did_you_mean


def shown(value: object, limit: int = 40) -> str:
    """value as TOML writes it ("3", true, 1.5), cut to limit characters."""
    text = json.dumps(value) if isinstance(value, (str, bool)) else repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def one_of(value: object, choices: Sequence[str]) -> str:
    """A value not among the choices of an enumerated field: "'x' is not one of a, b (did you mean a?)"."""
    return f"{shown(value)} is not one of {', '.join(choices)}{did_you_mean(value, choices)}"
