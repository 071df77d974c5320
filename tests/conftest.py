"""Shared fixtures: the repo root, a built native bench program, spec text helpers."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.blackbox.browser import chromium  # noqa: F401  (a fixture for every test module)

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def native_bench() -> Path:
    subprocess.run(["make", "-s", "-C", str(ROOT), "native"], check=True)
    return ROOT / "build" / "native" / "xtalk-bench"


MINIMAL_SPEC = """
name = "t"
cpus = [0, 1]
[measurer]
bench = "qsort"
iterations = 5
[[stressors]]
name = "thrash"
bench = "cache_thrash"
"""
