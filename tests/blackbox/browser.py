"""Headless Chromium for report tests: find it, screenshot a page, dump its DOM, and
list what a page would fetch from outside (a self-contained report has nothing)."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    pytest.skip("no chromium in PATH (apt-get install -y chromium)")


def external_refs(html: str) -> list[str]:
    refs = re.findall(r'(?:src|href)\s*=\s*"([^"]*)"', html) + re.findall(r"url\(([^)]*)\)", html)
    return [r for r in refs if not r.startswith(("data:", "#"))] + re.findall(r"<(?:script|link|iframe)\b", html)


def screenshot(chromium: str, page: Path, shot: Path, profile: Path, size: str = "1400,6000") -> None:
    run = subprocess.run([chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", f"--screenshot={shot}",
                          f"--window-size={size}", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and shot.is_file(), run.stderr[-2000:]


def dump_dom(chromium: str, page: Path, profile: Path) -> str:
    dom = subprocess.run([chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    return dom.stdout
