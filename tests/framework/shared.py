"""What several tests read, made once per test run however the run's tests are spread over
pytest-xdist workers (a module-scoped fixture alone is made once per worker that runs one of
the module's tests): the first test to ask makes it, under a lock in the run's own temporary
directory; the others, in any worker, wait for it and read the same files and value.
A test that changes what it got works on a copy (test_cli_errors' and test_integrity's
`campaign` fixtures copy the stored campaign).
Caveats: made for one run, never kept across runs; a make that fails is made again by the
next test that asks (and each such test fails, saying why)."""
from __future__ import annotations

import fcntl
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any


def run_root(tmp_path_factory) -> Path:
    """The test run's temporary directory, the same for all its xdist workers."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def made_once(tmp_path_factory, key: str, make: Callable[[Path], Any]) -> tuple[Path, Any]:
    """(the run's directory `key`, the value make returned, JSON): made by make(directory) at the
    first call of the run, from any worker; later calls wait for it and get the same."""
    root = run_root(tmp_path_factory) / "shared"
    root.mkdir(exist_ok=True)
    where, made = root / key, root / f"{key}.json"
    with open(root / f"{key}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not made.exists():
            shutil.rmtree(where, ignore_errors=True)
            where.mkdir()
            made.write_text(json.dumps(make(where)))
    return where, json.loads(made.read_text())
