"""A small finished campaign for the tests that damage one (test_integrity, test_downgrades):
solo and same-core, one run of 1 s each on the native backend, with its report; made once per
test run (shared.py) and handed out as a copy with its mtimes kept."""
from __future__ import annotations

import shutil
from pathlib import Path

from tests.framework.cli import campaign_dir, small, xtalk
from tests.framework.shared import made_once


def stored_copy(tmp_path_factory, tmp_path: Path) -> Path:
    """A copy of the stored campaign in tmp_path/out, to damage."""
    def measure(tmp):
        res = xtalk("run", small(tmp, duration=1), "--out", tmp / "out", "--report")
        assert res.returncode == 0, res.stderr

    tmp, _ = made_once(tmp_path_factory, "integrity-stored", measure)
    stored = campaign_dir(tmp / "out")
    return Path(shutil.copytree(stored, tmp_path / "out" / stored.name))
