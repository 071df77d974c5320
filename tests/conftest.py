"""Fixtures every test module gets (pytest's conftest mechanism): a built native bench
program, headless Chromium (tests/framework/browser.py), and no `xtalk` a test started
left running after it. Helpers that test modules import live in tests/framework/, never here."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.framework.browser import chromium  # noqa: F401  (a fixture for every test module)
from tests.framework.cli import stop_started
from tests.framework.repo import ROOT


@pytest.fixture(scope="session")
def native_bench() -> Path:
    subprocess.run(["make", "-s", "-C", str(ROOT), "native"], check=True)
    return ROOT / "build" / "native" / "xtalk-bench"


@pytest.fixture(autouse=True)
def no_xtalk_outlives_its_test():
    yield
    stop_started()
