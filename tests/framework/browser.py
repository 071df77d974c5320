"""Headless Chromium for report tests: find it, screenshot a page, dump its DOM, measure
where its elements lie in a window of a given size, and list what a page would fetch from
outside (a self-contained report has nothing)."""
from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"]
# no name resolves and no proxy answers: a page that needed the network would show it
OFFLINE_FLAGS = ["--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9", "--virtual-time-budget=8000"]


@pytest.fixture(scope="module")
def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    pytest.skip("no chromium in PATH (apt-get install -y chromium)")


def external_refs(html: str) -> list[str]:
    refs = re.findall(r'(?:src|href)\s*=\s*"([^"]*)"', html) + re.findall(r"url\(([^)]*)\)", html)
    return [r for r in refs if not r.startswith(("data:", "#"))] + re.findall(r"<(?:link|iframe)\b", html)


def screenshot(chromium: str, page: Path, shot: Path, profile: Path, size: str = "1400,6000") -> None:
    run = subprocess.run([chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", f"--screenshot={shot}",
                          f"--window-size={size}", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and shot.is_file(), run.stderr[-2000:]


def dump_dom(chromium: str, page: Path, profile: Path, offline: bool = False) -> str:
    """The DOM after the page loaded (offline: with networking cut off and its scripts given
    time to run)."""
    flags = CHROMIUM_FLAGS + (OFFLINE_FLAGS if offline else [])
    dom = subprocess.run([chromium, *flags, f"--user-data-dir={profile}", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    return dom.stdout


BOXES_SCRIPT = """<script>(function () {
  const out = {viewport: [window.innerWidth, window.innerHeight]};
  for (const [key, selector] of Object.entries(%s)) {
    out[key] = Array.from(document.querySelectorAll(selector), e => {
      const r = e.getBoundingClientRect();
      return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, text: e.textContent};
    });
  }
  const pre = document.createElement("pre");
  pre.id = "xt-boxes";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();</script>"""


def element_boxes(chromium: str, page: Path, selectors: dict[str, str], profile: Path,
                  size: str = "1366,768") -> dict:
    """Where the elements matching each CSS selector lie once the page is laid out in a
    window of `size` (a copy of the page with a script that measures them, run in the
    page as it loads; the report's CSP lets inline scripts run): {key: [{top, bottom,
    left, right, text}]} in CSS pixels from the top of the page, and `viewport`."""
    probe = page.with_name(page.stem + ".boxes.html")
    probe.write_text(page.read_text().replace("</body>", BOXES_SCRIPT % json.dumps(selectors) + "</body>"))
    try:
        dom = subprocess.run([chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", f"--window-size={size}",
                              "--dump-dom", probe.as_uri()], capture_output=True, text=True, timeout=120)
    finally:
        probe.unlink()
    assert dom.returncode == 0, dom.stderr[-2000:]
    found = re.search(r'<pre id="xt-boxes">(.*?)</pre>', dom.stdout, re.S)
    assert found, "the measuring script did not run"
    return json.loads(html.unescape(found.group(1)))
