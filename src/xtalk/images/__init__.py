"""Guest images that xtalk builds itself from distribution packages (images/<name>/ holds
each recipe's files; the code that builds it is a module here).

Images are content-addressed: a build hashes its inputs (package versions and their
SHA256 from the archive index, the recipe's files, xtalk's own programs, the builder's
code) and reuses an earlier build with the same hash. Everything goes to the cache
directory (XTALK_CACHE, else $XDG_CACHE_HOME/xtalk, else ~/.cache/xtalk), never to
host-wide package state.
"""
from __future__ import annotations

import os
from pathlib import Path

RECIPES = ("linux-rt",)


def cache_dir() -> Path:
    env = os.environ.get("XTALK_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "xtalk"
