"""A search's journal (Optuna's JournalFileBackend: one JSON record a line, appended) made
whole before Optuna reads it, and its settings read, so that a search can always be
resumed or is refused with the reason:

- a tail that is no whole record (a write cut by a kill or a full disk; garbage or binary
  bytes; a record that is no JSON object, or has no operation Optuna knows) is cut off,
  from the first such record on, kept aside as journal.log.cut-<time>, and said: the
  search goes on from its last whole record, as SQLite rolls back a torn write. Optuna
  read such a journal as "JSONDecodeError" (or failed an assertion) every time, and a
  resume appended onto the torn line;
- a journal that is gone or empty while this search's trial campaigns are stored is
  refused (those trials would silently be run again from nothing);
- a settings.json that does not read is refused, naming it.
- a journal that is not a file of its own (a FIFO, a directory, a symbolic or hard link)
  is refused, unread and uncut.
Caveat: a record with a known operation but arguments Optuna did not write is left to
Optuna; one it cannot replay refuses the search (engine.open_study), naming the journal.
"""
from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

from optuna.storages.journal._storage import JournalOperation

from ..errors import Problem, SpecError
from ..files import NotRegular, open_own, read_regular, write_atomic

JOURNAL = "journal.log"
OPERATIONS = {op.value for op in JournalOperation}
SETTINGS = "settings.json"


def whole_length(data: bytes) -> int:
    """The bytes of `data` that are whole records: lines that end, each a JSON object."""
    good = 0
    for line in data.splitlines(keepends=True):
        if not line.endswith(b"\n"):
            break
        try:
            record = json.loads(line)
        except ValueError:  # JSONDecodeError, UnicodeDecodeError
            break
        if not isinstance(record, dict) or record.get("op_code") not in OPERATIONS:
            break
        good += len(line)
    return good


def heal(directory: Path, say) -> None:
    """Cut the journal in `directory` to its whole records, keeping the rest aside; `say`
    tells the user what was cut and where it is. Only a journal of its own is read and cut
    (files.open_own): one that is a link would be cut, and then appended to, through it."""
    journal = directory / JOURNAL
    try:
        fd = open_own(journal)
    except FileNotFoundError:
        return
    except NotRegular as err:
        raise SpecError("search", [Problem("--name", f"{journal} is {err.kind}, not a search journal of its own: "
                                                     "remove it or give another --name")]) from None
    with os.fdopen(fd, "r+b") as f:
        data = f.read()
        good = whole_length(data)
        if good == len(data):
            return
        aside = directory / f"{JOURNAL}.cut-{time.strftime('%Y%m%d-%H%M%S')}"
        write_atomic(aside, data[good:])
        f.truncate(good)
    say(f"search journal {journal}: its last {len(data) - good} bytes were no whole record (a write cut short, "
        f"or bytes that are not Optuna's): kept in {aside}; the search goes on from its last whole record")


def trial_campaigns(out: Path, spec_name: str, search_name: str) -> list[str]:
    """The stored campaigns of this search's trials and its alone runs (engine.neighbour_spec)."""
    pattern = re.compile(rf"{re.escape(spec_name)}-search-{re.escape(search_name)}-(alone|t\d+[ab])-\d{{8}}-\d{{6}}")
    return sorted(p.name for p in out.iterdir() if pattern.fullmatch(p.name)) if out.is_dir() else []


def check_kept(directory: Path, earlier: list[str]) -> None:
    """Refuse a search whose journal is gone or empty while its campaigns (`earlier`) are stored."""
    journal = directory / JOURNAL
    if earlier and (not journal.is_file() or journal.stat().st_size == 0):
        raise SpecError("search", [Problem("--name", f"the journal of this search ({journal}) is "
                                                     f"{'empty' if journal.is_file() else 'gone'}, but {len(earlier)} "
                                                     f"of its campaigns are stored (first: {earlier[0]}): resuming would "
                                                     "run its trials again from nothing; give another --name to start "
                                                     "a new search")])


def read_settings(directory: Path) -> dict | None:
    """The settings the search was started with; None before its first start."""
    path = directory / SETTINGS
    try:
        settings = json.loads(read_regular(path))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as err:
        raise SpecError("search", [Problem("--name", f"{path} does not read ({err}): the search's settings are "
                                                     "unknown; give another --name to start a new search")]) from None
    if not isinstance(settings, dict):
        raise SpecError("search", [Problem("--name", f"{path} is no JSON object; give another --name")])
    return settings
