"""Guest images that xtalk builds itself from distribution packages (images/<name>/ holds
each recipe's files; the code that builds it is a module here).

Images are content-addressed: a build hashes its inputs (package versions and their
SHA256 from the archive index, the recipe's files, xtalk's own programs, the builder's
code) and reuses an earlier build with the same hash. Everything goes to the cache
directory (cache.py: XTALK_CACHE, else $XDG_CACHE_HOME/xtalk, else ~/.cache/xtalk), never to
host-wide package state.

May import: host, results, remote, cache, plugins, files, tty, signals, errors, controls (the layers
below it, pyproject.toml).
"""
from __future__ import annotations

import shutil
from pathlib import Path

RECIPES = ("linux-rt",)


def prune(parent: Path, pattern: str, keep: Path, count: int, protect: set[Path] = frozenset()) -> list[Path]:
    """Remove all but the `count` newest builds matching pattern in parent (keep, the build
    just made or used, and protect, builds in use, always stay); the removed ones."""
    builds = sorted((p for p in parent.glob(pattern) if p != keep and p not in protect),
                    key=lambda p: p.stat().st_mtime, reverse=True)
    removed = builds[max(count - 1, 0):]
    for old in removed:
        shutil.rmtree(old, ignore_errors=True)
    return removed
