"""controls.py: escape sequences go whole, control and invisible format characters go,
tab and newline stay (one_line: they are spaces); what a human reads is kept."""
from __future__ import annotations

import pytest

from xtalk.controls import one_line, printable


@pytest.mark.parametrize("text, shown", [
    ("a\x1b[31;1mred\x1b[0m", "ared"),                 # CSI with parameters
    ("a\x1b]0;title\x07b", "ab"),                      # OSC ended by BEL
    ("a\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "alink"),  # OSC 8 hyperlink, ended by ST
    ("a\x9b2Jb", "ab"),                                # 8-bit CSI
    ("a\x1bcb", "ab"),                                 # a two-byte escape (RIS)
    ("x\x00\x08\x7f\x85y", "xy"),                      # C0, DEL, C1
    ("paid\u202egnp.exe", "paidgnp.exe"),              # right-to-left override
    ("a\u200bb\u2066c\u2069\ufeff", "abc"),            # zero-width space, isolates, BOM
    ("line\u2028next", "linenext"),                    # line separator
    ("tab\tand\nnewline", "tab\tand\nnewline"),
    ("µs ±3 % — Zürich 日本", "µs ±3 % — Zürich 日本"),  # what a human reads stays
])
def test_printable_takes_out_what_a_terminal_obeys_and_keeps_what_a_human_reads(text, shown):
    assert printable(text) == shown


def test_one_line_makes_tabs_and_newlines_spaces():
    assert one_line("a\tb\nc\r\n\x1b[2Jd") == "a b c d"
