"""Text from guests, imports, file names and specs made safe for any output (a terminal,
CSV, Markdown): terminal escape sequences taken out whole (CSI, OSC and the other strings,
their 8-bit forms, two-byte escapes such as a reset), then every other control character
(C0 but tab and newline, DEL, C1) and the invisible format characters that reorder or hide
text (bidirectional overrides and isolates, zero-width characters, line and paragraph
separators, BOM). A string that carries them cannot move the cursor, retitle the window,
hide text or start a new CSV row.
Caveat: what is kept is what a human would read; JSON output escapes control characters
itself (json.dumps) and keeps them."""
from __future__ import annotations

import re

STRING_END = r"[^\x07\x1b\x90-\x9f]*(?:\x07|\x1b\\|\x9c)?"  # up to BEL or ST; C1 excluded: linear time
ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]"    # CSI, 8-bit CSI
    rf"|\x1b[\]PX^_]{STRING_END}|[\x90\x98\x9d-\x9f]{STRING_END}"  # OSC, DCS, SOS, PM, APC; 8-bit
    r"|\x1b[ -/]*[0-~]")                               # the rest: ESC c (reset), ESC ( B, ESC 7
CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff"
                      "\ufff9-\ufffb]")


def printable(text: str) -> str:
    """`text` without escape sequences and control or invisible format characters (tab and
    newline kept)."""
    return CONTROLS.sub("", ESCAPES.sub("", text))


def one_line(text: str) -> str:
    """printable(text) on one line: a newline or tab is a space (a CSV cell, a header)."""
    return printable(text).replace("\n", " ").replace("\t", " ")
