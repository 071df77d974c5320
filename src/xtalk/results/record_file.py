"""A record file (campaign.json, a run's meta.json) as bytes and JSON, without its models
(records.py, which imports pydantic): reading the object, its format version, its own hash,
and the stamp of the code that checked it.

`record_sha256` (meta.json; campaign.json from format 9): SHA-256 of the record's canonical
JSON (sorted keys, no spaces), itself left out; a record whose content is not what it was
written with, or that claims a format whose records are always sealed but has no hash, is
damaged (records.load_run, records.load_campaign).
`checked` (campaign.json and meta.json, format 8): written by the store after it checked
the record against its models: SHA-256 of this code's fingerprint and the record's
canonical JSON (`checked` and `record_sha256` left out). A meta.json's stamp also says the
events.jsonl its manifest lists was checked (store.save_run_record). `checked_record`
gives a record whose stamp is that of its content and of this code: `xtalk list` reads it
without its models and without importing pydantic (issue 46), these bytes having been
checked by this very code; any other record is read through its models.
The fingerprint is that of every file of the xtalk package (its path, size and mtime: what
Python trusts its own bytecode caches by), the interpreter's version and the distributions
installed where it imports from (the dist-info names, name and version, of each directory
on sys.path that holds some). Any of them
changed, and every stamp made before stops counting.
Caveat: an edit that keeps a file's size and mtime, or a plug-in installed in editable mode
outside xtalk (an entry point) whose models change without a reinstall, leaves the
fingerprint as it was; such a record is read by `xtalk list` as this code checked it.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
from pathlib import Path

from .. import __version__
from ..errors import InfrastructureError
from ..files import read_regular

SCHEMA_VERSION = 9  # the format history: records.py
CAMPAIGN_HASHED_SINCE = 9  # campaign.json carries its hash, and spec.toml's (spec_hash), from this format on
HASH_KEY = "record_sha256"
CHECKED_KEY = "checked"


class RecordError(InfrastructureError):
    """A record that cannot be read: `label` says how (corrupt, newer format)."""

    def __init__(self, file: Path, reason: str, label: str = "corrupt", record: dict | None = None):
        self.file, self.reason, self.label = Path(file), reason, label
        self.record = record  # what the file holds, where it reads (an edited run record)
        super().__init__(f"{file}: {reason}")


def read_object(path: Path) -> dict:
    """The JSON object in `path` (a RecordError naming it if there is none)."""
    try:
        data = read_regular(path)
    except OSError as err:
        raise RecordError(path, "missing" if isinstance(err, FileNotFoundError) else err.strerror or str(err)) from None
    if not data.strip():
        raise RecordError(path, "empty")
    try:
        obj = json.loads(data)
    except ValueError as err:  # JSONDecodeError, UnicodeDecodeError
        raise RecordError(path, f"not valid JSON ({err})") from None
    if not isinstance(obj, dict):
        raise RecordError(path, "not a JSON object")
    return obj


def format_version(obj: dict, path: Path) -> int:
    """The record's schema_version, one this xtalk reads (else a RecordError)."""
    version = obj.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise RecordError(path, f"no valid schema_version ({version!r})")
    if version > SCHEMA_VERSION:
        raise RecordError(path, f"format version {version} is newer than xtalk {__version__} reads (1 to "
                                f"{SCHEMA_VERSION}): use a newer xtalk", label="newer format")
    return version


def _canonical(obj: dict, leave_out: tuple[str, ...]) -> bytes:
    body = {k: v for k, v in obj.items() if k not in leave_out}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), default=str).encode()


def record_hash(obj: dict) -> str:
    """SHA-256 of a record's canonical JSON, its own hash left out."""
    return hashlib.sha256(_canonical(obj, (HASH_KEY,))).hexdigest()


def sealed_json(record: dict) -> str:
    """A record's file text with the hash of what it holds (record_sha256)."""
    return dump_json({**record, HASH_KEY: record_hash(record)})


def hash_problem(obj: dict, hashed_since: int) -> str | None:
    """What is wrong with a record's own hash, or None: one that is not its content's, or none
    in a record of format `hashed_since` or later (every xtalk writing those seals them: a
    record claiming such a format without its hash was edited)."""
    if HASH_KEY not in obj:
        version = obj.get("schema_version")
        return None if version < hashed_since else \
            f"no {HASH_KEY}, which every record of format {hashed_since} or later is written with (format {version})"
    if obj[HASH_KEY] != record_hash(obj):
        return f"content changed: its SHA-256 is {record_hash(obj)[:12]}…, it was written with {str(obj[HASH_KEY])[:12]}…"
    return None


def dump_json(record: dict) -> str:
    return json.dumps(record, indent=2, sort_keys=True, default=str) + "\n"


@functools.lru_cache(maxsize=1)
def fingerprint() -> str:
    """This code's fingerprint (module docstring), taken once a process."""
    return code_digest(Path(__file__).resolve().parent.parent, sys.path)


def code_digest(package: Path, path_entries: list[str]) -> str:
    """SHA-256 of the interpreter's version, every file of `package` (path, size, mtime;
    __pycache__ left out) and the dist-info names of each of `path_entries` that holds some."""
    digest = hashlib.sha256(sys.version.encode())
    for top, dirs, files in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            st = os.stat(os.path.join(top, name))
            digest.update(f"{os.path.relpath(top, package)}/{name}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    for entry in path_entries:
        try:
            names = sorted(n for n in os.listdir(entry or ".") if n.endswith((".dist-info", ".egg-info")))
        except OSError:  # a zip, or gone
            continue
        if names:  # not the script's directory, which differs from command to command
            digest.update(f"{entry}\0{' '.join(names)}\n".encode())
    return digest.hexdigest()


def stamp(record: dict) -> str:
    """The `checked` stamp of a record as it reads back (JSON-plain), with this code."""
    return hashlib.sha256(fingerprint().encode() + _canonical(record, (HASH_KEY, CHECKED_KEY))).hexdigest()


def read_back(record: dict) -> dict:
    """A record as it reads back from its file, without its hash and stamp."""
    return json.loads(dump_json({k: v for k, v in record.items() if k not in (HASH_KEY, CHECKED_KEY)}))


def stamped(record: dict) -> dict:
    """A record checked against its models, as it reads back, with its `checked` stamp."""
    plain = read_back(record)
    return {**plain, CHECKED_KEY: stamp(plain)}


def checked_record(path: Path) -> dict | None:
    """The record in `path` if this code has checked it as it is (its stamp), else None:
    unreadable, of another format version, or not stamped by this code (read it through
    its models, which say what is wrong)."""
    try:
        obj = read_object(path)
    except RecordError:
        return None
    if obj.get("schema_version") != SCHEMA_VERSION or obj.get(CHECKED_KEY) != stamp(obj):
        return None
    return obj
