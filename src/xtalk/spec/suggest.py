"""Wording of spec problems: 'did you mean ...?' for a misspelled name (a spec key,
bench, parameter, stressor or metric, from the names that would have been right:
difflib's closest match), and a value shown as the TOML that gave it."""
from __future__ import annotations

import difflib
import json
from typing import Iterable


def did_you_mean(word: object, choices: Iterable[str]) -> str:
    """' (did you mean X?)' with the closest choice, or '' when none is close."""
    close = difflib.get_close_matches(str(word), sorted(set(choices)), n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


def shown(value: object, limit: int = 40) -> str:
    """value as TOML writes it ("3", true, 1.5), cut to limit characters."""
    text = json.dumps(value) if isinstance(value, (str, bool)) else repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."
