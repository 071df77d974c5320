"""What reaches a terminal: every string xtalk prints through its consoles, and its error
lines, with control characters taken out (C0 but tab and newline, DEL, and C1 such as
U+009B, the 8-bit CSI): a file name, a guest's console line or a cached version string
that carries escapes cannot move the cursor, retitle the window or hide text. rich's own
styling is added after, so colours stay.
Caveat: only what goes through `Console` or `printable` is filtered; JSON output escapes
control characters itself (json.dumps).
"""
from __future__ import annotations

import re
import sys

from rich.console import Console as RichConsole
from rich.text import Text

CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """`text` without control characters (tab and newline kept)."""
    return CONTROLS.sub("", text)


class Console(RichConsole):
    """A rich console whose strings are printable() before rich styles them; its reader going
    away (`xtalk show ... | head`) ends the command as a closed pipe does elsewhere in xtalk
    (cli/main.py), not with rich's exit status 1, which the exit-code table reads as a failed
    KPI gate."""

    def render_str(self, text: str, **kwargs) -> Text:
        return super().render_str(printable(text), **kwargs)

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError


def stderr_console() -> Console:
    """The console of a campaign's progress lines: stderr, 200 columns where it is no terminal."""
    return Console(stderr=True, highlight=False, width=None if sys.stderr.isatty() else 200)
