"""What reaches a terminal: every string xtalk prints through its consoles made printable
(controls.py: escapes, control and invisible format characters taken out): a file name, a
guest's console line or a cached version string that carries escapes cannot move the
cursor, retitle the window or hide text. rich's own styling is added after, so colours stay.
Caveat: only what goes through `Console` or `printable` is filtered (a rich Text built by
hand is not: build it from printable strings); JSON output escapes control characters
itself (json.dumps).
"""
from __future__ import annotations

import sys

from rich.console import Console as RichConsole
from rich.text import Text

from .controls import printable


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
