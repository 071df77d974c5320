"""Headless Chromium for report tests: find it, screenshot a page, dump its DOM, measure
where elements lie on a screen of a given size, and list what a page would fetch from
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


LAYOUT_SCRIPT = """<script>(() => {
  const out = {viewport: [innerWidth, innerHeight]};
  for (const [name, sel] of Object.entries(%s)) {
    const boxes = [...document.querySelectorAll(sel)].map(e => e.getBoundingClientRect());
    out[name] = boxes.length ? [Math.min(...boxes.map(b => b.top + scrollY)),
                                Math.max(...boxes.map(b => b.bottom + scrollY))] : null;
  }
  const pre = document.createElement("pre");
  pre.id = "xt-layout";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();</script>"""


def layout(chromium: str, page: Path, profile: Path, selectors: dict[str, str],
           size: str = "1366,768") -> dict:
    """Where the elements matching each CSS selector lie on the page laid out in a window of
    `size` (CSS pixels from the top of the page: [top of the first, bottom of the last], None
    where nothing matches), and the viewport: [width, height]. A copy of the page with a
    script that measures them is rendered; the page itself is not touched."""
    probe = page.with_name(f".layout-{page.name}")
    probe.write_text(page.read_text().replace("</body>", LAYOUT_SCRIPT % json.dumps(selectors) + "</body>"))
    try:
        dom = subprocess.run([chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", f"--window-size={size}",
                              "--dump-dom", probe.as_uri()], capture_output=True, text=True, timeout=120)
    finally:
        probe.unlink()
    found = re.search(r'<pre id="xt-layout">(.*?)</pre>', dom.stdout, re.S)
    assert dom.returncode == 0 and found, dom.stderr[-2000:]
    return json.loads(found.group(1))


# the report's headline boxes (report/html.py) and what follows them, for layout()
HEADLINE = {"runs": '[data-headline="runs"]', "verdict": '[data-headline="verdict"]',
            "worst": '[data-headline="worst"]', "gates": '[data-headline="gates"]',
            "first_verdict": "table.answer tbody tr:first-child td.verdict", "headings": "h2"}


def above_fold(boxes: dict, key: str) -> list[float]:
    """[top, bottom] of what `key` names, checked to lie on the first screen."""
    box = boxes[key]
    assert box is not None, f"no {key} on the page"
    assert 0 <= box[0] and box[1] <= boxes["viewport"][1], (key, box, boxes["viewport"])
    return box


def headline_text(page: str, part: str) -> str:
    """The text of the headline's box `part` in the page, as a reader sees it."""
    found = re.search(rf'<div class="hl hl-{part} [^"]*" data-headline="{part}"[^>]*>(.*?)</div></div>', page, re.S)
    assert found, part
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", found.group(1))).split())
