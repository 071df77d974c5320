"""tty.py: what reaches a terminal carries no control characters (issue 43: 8-bit CSI and
escapes in file names and cached version strings reached it; controls.py), and rich's own
colours stay."""
from __future__ import annotations

import io

from rich.table import Table

from xtalk.tty import Console, printable

NASTY = "run\x1b]0;owned\x07-\x9b2J\x1b[31mred\x7f\r\tname\n"


def test_escapes_go_whole_and_control_characters_go_tab_and_newline_kept():
    assert printable(NASTY) == "run-red\tname\n"


def test_a_console_prints_strings_and_table_cells_without_them_and_keeps_its_own_styles():
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, color_system="standard", width=120)
    console.print(NASTY, style="red")
    table = Table("file")
    table.add_row(NASTY)
    console.print(table)
    text = out.getvalue()
    assert "\x9b" not in text and "\x07" not in text and "\x7f" not in text and "\x1b]" not in text
    assert "\x1b[31m" in text  # rich's colour for style="red"
    assert "run-red" in text and "owned" not in text
